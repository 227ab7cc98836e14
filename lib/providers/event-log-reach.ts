import type { ProviderEventLog } from './event-log.interface';
import { GOCARDLESS_EVENT_RETENTION_MS } from './gocardless/gocardless-event-log';
import { PADDLE_EVENT_RETENTION_MS } from './paddle/paddle-event-log';
import { PAYPAL_EVENT_RETENTION_MS } from './paypal/paypal-event-log';
import { SQUARE_EVENT_RETENTION_MS } from './square/square-event-log';
import { STRIPE_EVENT_RETENTION_MS } from './stripe/stripe-event-log';

/** How long each provider whose event log the package reads keeps its events, by provider kind. */
const RETENTION_BY_KIND: Readonly<Record<string, number>> = {
  stripe: STRIPE_EVENT_RETENTION_MS,
  paypal: PAYPAL_EVENT_RETENTION_MS,
  paddle: PADDLE_EVENT_RETENTION_MS,
  square: SQUARE_EVENT_RETENTION_MS,
  gocardless: GOCARDLESS_EVENT_RETENTION_MS,
};

/**
 * The reach of the event log of a provider `kind` before any credentials are known (a tenant
 * endpoint, whose tenants bring their own): what `recover` is checked against at startup;
 * undefined when the package reads no log of that provider.
 */
export function eventLogReachOf(
  kind: string,
): Pick<ProviderEventLog, 'retentionMs' | 'source'> | undefined {
  const retentionMs = RETENTION_BY_KIND[kind];
  return retentionMs === undefined
    ? undefined
    : { retentionMs, source: `${kind}'s event log (each tenant's, with its own credentials)` };
}
