import { endpointLabel } from './providers.messages';

/**
 * Texts of the provider API calls made for deliveries: the startup error of `apiCallBudget`, and
 * the journal's reasons of a delivery answered without a call of its own.
 */

/** `apiCallBudget` is not `{ perMinute, burst }`, or a field of it not a whole number, 1 or more. */
export function invalidApiCallBudgetMessage(
  name: unknown,
  kind: string,
  budget: unknown,
  wrong?: {
    readonly field: 'perMinute' | 'burst';
    readonly value: unknown;
    readonly fallback: number;
  },
): string {
  if (wrong === undefined) {
    return (
      `${endpointLabel(name, kind)}: apiCallBudget must be an object, e.g. ` +
      `apiCallBudget: { perMinute: 300, burst: 60 } (got ${String(budget)}); leave it out for those.`
    );
  }
  return (
    `${endpointLabel(name, kind)}: apiCallBudget.${wrong.field} must be a whole number of calls, ` +
    `1 or more (got ${String(wrong.value)}); leave it out for ${wrong.fallback}.`
  );
}

/** Why a delivery is refused (503) when the endpoint's budget of API calls is spent. */
export function apiBudgetSpentMessage(
  endpoint: string,
  provider: string,
  subject: string,
  budget: { readonly perMinute: number; readonly burst: number },
  retryAfterSeconds: number,
): string {
  return (
    `Endpoint "${endpoint}" has spent its budget of ${provider} API calls (apiCallBudget: ` +
    `${budget.perMinute} per minute, burst ${budget.burst}), so ${subject} was not looked up: ` +
    `refused (503, Retry-After ${retryAfterSeconds} s) and nothing stored, so ${provider} sends ` +
    `it again later. If legitimate deliveries meet this, raise apiCallBudget.perMinute (or ` +
    `apiCallBudget.burst) of endpoint "${endpoint}".`
  );
}

/**
 * Why a delivery about a resource read for another delivery a moment ago is refused (503): that
 * read may predate the change this delivery announces.
 */
export function sharedAnswerMessage(provider: string, subject: string, ageMs: number): string {
  return (
    `The ${provider} API was asked about ${subject} ${ageMs} ms ago for another delivery; what ` +
    'it said then may predate the change this delivery announces, so this delivery is not ' +
    `stored from that answer: refused (503) so that ${provider} calls again and ${subject} is ` +
    'read afresh'
  );
}

/** Appended to the reason of a "not found" that another delivery's call answered. */
export function sharedNotFoundNote(ageMs: number): string {
  return ` (answered ${ageMs} ms ago for another delivery; not asked again)`;
}
