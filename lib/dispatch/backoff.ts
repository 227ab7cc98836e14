/**
 * Delay before the next attempt: exponential from `baseDelayMs`, capped at `maxDelayMs`, with
 * "equal jitter" (half fixed, half random) so retries of many events do not arrive together
 * and no delay collapses to zero.
 */
export function retryDelayMs(
  attempt: number,
  baseDelayMs: number,
  maxDelayMs: number,
  random: () => number = Math.random,
): number {
  const exponential = Math.min(maxDelayMs, baseDelayMs * 2 ** Math.max(0, attempt - 1));
  return Math.round(exponential / 2 + (exponential / 2) * random());
}
