/**
 * Polls `check` until it returns true or `timeoutMs` passes. A file of its own, so that a unit
 * spec can wait for a condition without loading the test app.
 */
export async function eventually(
  check: () => Promise<boolean> | boolean,
  timeoutMs = 10_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) {
      return;
    }
    if (Date.now() > deadline) {
      throw new Error(`condition not met within ${timeoutMs} ms`);
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
