import { WebhookVerificationError } from './webhook-errors';

/**
 * Checks that a signed timestamp (Unix seconds) lies within `toleranceSeconds` of `now`,
 * both in the past and in the future. A tolerance of 0 disables the check.
 * Every provider with a signed timestamp goes through this one function.
 */
export function assertTimestampWithinWindow(
  timestampSeconds: number,
  now: Date,
  toleranceSeconds: number,
): void {
  if (!Number.isSafeInteger(timestampSeconds)) {
    throw new WebhookVerificationError('bad_signature', 'Signature timestamp is not an integer');
  }
  if (toleranceSeconds <= 0) {
    return;
  }
  const skew = Math.abs(Math.floor(now.getTime() / 1000) - timestampSeconds);
  if (skew > toleranceSeconds) {
    throw new WebhookVerificationError(
      'timestamp_out_of_window',
      `Signature timestamp is ${skew}s away from now; the window is ${toleranceSeconds}s`,
    );
  }
}

/**
 * Checks that a signed event time lies no more than `maxAgeSeconds` before `now`. For providers
 * that sign the event's time but no per-delivery timestamp, this bounds how late a captured
 * delivery can be replayed; an event time in the future passes (clocks differ, and the dedup
 * key catches a replay while it is young).
 * @param explain the error text for an event `ageSeconds` old.
 * @throws WebhookVerificationError `timestamp_out_of_window`
 */
export function assertEventNotOlderThan(
  occurredAt: Date,
  now: Date,
  maxAgeSeconds: number,
  explain: (ageSeconds: number) => string,
): void {
  const ageSeconds = Math.floor((now.getTime() - occurredAt.getTime()) / 1000);
  if (ageSeconds > maxAgeSeconds) {
    throw new WebhookVerificationError('timestamp_out_of_window', explain(ageSeconds));
  }
}

/** Parses a decimal Unix-seconds header value strictly (digits only). */
export function parseUnixSeconds(value: string | undefined): number | undefined {
  if (value === undefined || !/^\d{1,12}$/.test(value.trim())) {
    return undefined;
  }
  return Number(value.trim());
}
