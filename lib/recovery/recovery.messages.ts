import type { WebhookEndpoint } from '../providers/webhook-provider.interface';
import { eventLogReachOf } from '../providers/event-log-reach';
import { isTenantEndpoint } from '../tenants/tenant-endpoint';

/** Providers whose event log the package reads, for the message of an endpoint that has none. */
export const PROVIDERS_WITH_EVENT_LOGS = ['stripe', 'paypal', 'paddle', 'square', 'gocardless'];

/**
 * Why a recovery of `window` cannot read the log of the endpoint named `name` (undefined when
 * there is no such endpoint), or undefined when it can.
 */
export function recoveryProblems(
  name: string,
  endpoint: WebhookEndpoint | undefined,
  window: { readonly since: Date; readonly until: Date; readonly tenant?: string | null },
  now: Date,
): string | undefined {
  if (endpoint === undefined) {
    return `there is no endpoint "${name}" in this app`;
  }
  if (isTenantEndpoint(endpoint) && !window.tenant) {
    return `"${name}" is a tenant endpoint: name the tenant whose events to recover (tenant)`;
  }
  // NOTE: a tenant endpoint has no log of its own: each tenant's is read with the credentials
  // resolveTenant gives it, checked when the recovery runs; here, how far its kind's log reaches.
  const log = isTenantEndpoint(endpoint)
    ? (endpoint.eventLog ?? eventLogReachOf(endpoint.provider.kind))
    : endpoint.eventLog;
  if (log === undefined) {
    const kind = endpoint.provider.kind;
    return PROVIDERS_WITH_EVENT_LOGS.includes(kind)
      ? `endpoint "${name}" has no API credentials to read ${kind}'s event log with: give it ` +
          `the api option its provider page documents (docs/providers/${kind}.md)`
      : `${kind} keeps no event log the package can read (docs/providers/${kind}.md says what ` +
          'recovers its events: reconciliation, or the provider dashboard)';
  }
  if (!(window.since < window.until)) {
    return `the window's start (${window.since.toISOString()}) is not before its end (${window.until.toISOString()})`;
  }
  const oldest = new Date(now.getTime() - log.retentionMs);
  if (window.since < oldest) {
    return (
      `${log.source} keeps ${Math.round(log.retentionMs / 86_400_000)} days of events: start the ` +
      `window at ${oldest.toISOString()} or later (asked for ${window.since.toISOString()})`
    );
  }
  return undefined;
}

/** Why a recovery of a tenant `resolveTenant` returns null for cannot read its log. */
export const TENANT_UNKNOWN = (endpoint: string, tenant: string): string =>
  `resolveTenant of endpoint "${endpoint}" knows no tenant "${tenant}" (it returned null): ` +
  "its event log cannot be read without the tenant's API credentials";
