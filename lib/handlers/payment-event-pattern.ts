import {
  isPaymentEventType,
  PAYMENT_EVENT_TYPES,
  PaymentEventType,
} from '../core/payment-event-types';

/**
 * What a handler subscribes to: a normalized type, a provider's native type as
 * `'<kind>:<native>'`, or `'*'` for every event. There are no other wildcards: `'payment.*'` is
 * refused at startup, list the types instead.
 */
export type PaymentEventPattern = PaymentEventType | `${string}:${string}` | '*';

/** Levenshtein distance, for naming the closest accepted spelling. */
function distance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i += 1) {
    const current = [i];
    for (let j = 1; j <= b.length; j += 1) {
      const substitution = previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1);
      current.push(Math.min(previous[j] + 1, current[j - 1] + 1, substitution));
    }
    previous = current;
  }
  return previous[b.length];
}

function closest(value: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of candidates) {
    const d = distance(value, candidate);
    if (d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  return best;
}

function didYouMean(value: string, candidates: readonly string[]): string {
  const match = closest(value, candidates);
  return match === undefined ? '' : `; the closest is ${JSON.stringify(match)}`;
}

/**
 * Why `pattern` can never match an event, or undefined when it can.
 * @param kinds the kinds events can come from; without them any kind is taken.
 */
export function patternProblem(pattern: unknown, kinds?: ReadonlySet<string>): string | undefined {
  if (typeof pattern !== 'string' || pattern === '') return 'a pattern is a non-empty string';
  if (pattern === '*' || isPaymentEventType(pattern)) return undefined;
  if (pattern.includes('*')) {
    const prefix = pattern.slice(0, pattern.indexOf('*'));
    const meant = PAYMENT_EVENT_TYPES.filter((type) => type.startsWith(prefix));
    return (
      "wildcards other than '*' alone are not supported" +
      (meant.length > 0 ? `; list the types instead: ${meant.map((t) => `'${t}'`).join(', ')}` : '')
    );
  }
  const colon = pattern.indexOf(':');
  if (colon < 0) {
    return `it is not a normalized type${didYouMean(pattern, PAYMENT_EVENT_TYPES)}`;
  }
  const kind = pattern.slice(0, colon);
  if (pattern.length === colon + 1) return `the native type after "${kind}:" is empty`;
  if (kinds !== undefined && !kinds.has(kind)) {
    return (
      `"${kind}" is neither the kind of a configured endpoint nor a provider of this package` +
      didYouMean(kind, [...kinds])
    );
  }
  return undefined;
}
