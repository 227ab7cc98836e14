import { WebhookConfigurationError } from '../core/webhook-errors';
import { INVALID_IDEMPOTENCY_OPTION } from './idempotency.messages';

/**
 * A duration option in whole milliseconds within `[min, max]`, or `fallback` when it is unset.
 * @param where the API the option belongs to, e.g. `'@Idempotent()'`.
 * @param rule the accepted range as the error states it.
 * @throws WebhookConfigurationError naming the option and the accepted range.
 */
export function resolveMillisecondsOption(
  where: string,
  option: string,
  value: number | undefined,
  fallback: number,
  min: number,
  max: number,
  rule = `a whole number of milliseconds from ${min} to ${max}`,
): number {
  const resolved = value ?? fallback;
  if (!Number.isSafeInteger(resolved) || resolved < min || resolved > max) {
    throw new WebhookConfigurationError(INVALID_IDEMPOTENCY_OPTION(where, option, rule, value));
  }
  return resolved;
}
