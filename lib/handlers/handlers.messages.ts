import { PAYMENT_EVENT_TYPES } from '../core/payment-event-types';

const ACCEPTED =
  `a normalized type (${PAYMENT_EVENT_TYPES.join(', ')}), '<kind>:<native type>' for the kind ` +
  "of a configured endpoint, or '*' alone for every event; there are no other wildcards";

/** A handler's `on` pattern that no event can match. */
export const UNKNOWN_HANDLER_PATTERN = (handler: string, pattern: string, hint: string) =>
  `Handler "${handler}" subscribes to ${JSON.stringify(pattern)}, which no event can carry: ` +
  `${hint}. A pattern is ${ACCEPTED}.`;
