import type { WebhookEndpoint } from '../providers/webhook-provider.interface';
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
  const log = endpoint.eventLog;
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
