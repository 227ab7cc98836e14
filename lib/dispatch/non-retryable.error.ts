/**
 * Throw from a handler when retrying cannot help (the event can never be applied):
 * the event goes to `dead` at once instead of being retried.
 */
export class NonRetryableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'NonRetryableError';
  }
}
