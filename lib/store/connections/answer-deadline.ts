import { AnswerStage, STORE_TIMEOUT } from './store-timeout.messages';

/**
 * Default of `storeTimeoutMs`: well under the 5 s Paddle gives an answer, the shortest any
 * supported provider waits.
 */
export const DEFAULT_STORE_TIMEOUT_MS = 2000;

/** Thrown when storing a delivery takes longer than `storeTimeoutMs`; answered with 503. */
export class WebhookStoreTimeoutError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WebhookStoreTimeoutError';
  }
}

/**
 * The time a delivery's write may take, from the moment the store is asked until its commit:
 * queued for a group-commit batch, waiting for a connection, then for locks and the statement.
 * The write goes on where it cannot be stopped; the answer does not wait for it.
 */
export class AnswerDeadline {
  /** When the time is up, in ms since the epoch. */
  readonly until: number;
  /** What the write is waiting for; named in the error when the time runs out. */
  stage: AnswerStage = 'queued';

  constructor(readonly timeoutMs: number) {
    this.until = Date.now() + timeoutMs;
  }

  get expired(): boolean {
    return Date.now() >= this.until;
  }

  error(): WebhookStoreTimeoutError {
    return new WebhookStoreTimeoutError(STORE_TIMEOUT(this.timeoutMs, this.stage));
  }

  /** Settles as `work` does, or rejects with {@link error} once the time is up, if sooner. */
  race<T>(work: Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => reject(this.error()), this.until - Date.now());
      work.then(
        (value) => {
          clearTimeout(timer);
          resolve(value);
        },
        (error: unknown) => {
          clearTimeout(timer);
          reject(error);
        },
      );
    });
  }
}
