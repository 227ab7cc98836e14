import { PAYMENT_EVENT_TYPES } from '../core/payment-event-types';

const ACCEPTED =
  `a normalized type (${PAYMENT_EVENT_TYPES.join(', ')}), '<kind>:<native type>' for the kind ` +
  "of a configured endpoint, or '*' alone for every event; there are no other wildcards";

/** A handler's `on` pattern that no event can match. */
export const UNKNOWN_HANDLER_PATTERN = (handler: string, pattern: string, hint: string) =>
  `Handler "${handler}" subscribes to ${JSON.stringify(pattern)}, which no event can carry: ` +
  `${hint}. A pattern is ${ACCEPTED}.`;

export const AMBIGUOUS_HANDLER = (key: string) =>
  `Two @OnPaymentEvent handlers share the key "${key}" (class and method name): ` +
  'rename one of the classes or methods, or give one a unique `key` in its options.';

export const AMBIGUOUS_FUNCTION_HANDLER = (name: string) =>
  `Two handlers are named "${name}": the name is the handler's ledger key, so give each ` +
  'handler a name of its own.';

export const UNKNOWN_FUNCTION_HANDLER_ENDPOINT = (
  name: string,
  endpoint: string,
  configured: readonly string[],
) =>
  `Handler "${name}" names endpoint "${endpoint}", which is not configured ` +
  `(the endpoints are ${configured.map((n) => JSON.stringify(n)).join(', ') || 'none'}): ` +
  'fix its `endpoint` or add that endpoint to `endpoints`.';

export const UNKNOWN_HANDLER_ENDPOINT = (key: string, endpoint: string) =>
  `@OnPaymentEvent handler "${key}" names endpoint "${endpoint}", which is not configured: ` +
  'fix the `endpoint` option or add that endpoint to WebhooksModule.forRoot({ endpoints }).';

const quotedList = (names: readonly string[]) => names.map((n) => `'${n}'`).join(', ');

/**
 * A handler with no `endpoint` in an app with tenant endpoints and endpoints of its own: it would
 * take a tenant's events for the app's own.
 */
export const UNSCOPED_HANDLER_WITH_TENANTS = (
  key: string,
  own: readonly string[],
  tenants: readonly string[],
) =>
  `Handler "${key}" names no endpoint, so it would run for the events of every endpoint: ` +
  `those of ${quotedList(own)} and those of every tenant of ${quotedList(tenants)}, where one ` +
  "merchant's order-1 could be taken for the app's own order-1. Give it `endpoint`: " +
  `${own.length === 1 ? `'${own[0]}'` : `[${quotedList(own)}]`} for the app's own events, ` +
  `${tenants.length === 1 ? `'${tenants[0]}'` : `[${quotedList(tenants)}]`} for the tenants', ` +
  `or '*' for every endpoint's (ctx.tenant is null for the app's own).`;

export const EVERY_ENDPOINT_NOT_ALONE = (key: string) =>
  `Handler "${key}" names '*' among other endpoints: '*' is every endpoint, so give it alone, ` +
  'or name the endpoints without it.';
