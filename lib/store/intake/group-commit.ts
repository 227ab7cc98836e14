interface Waiting<T, R> {
  readonly item: T;
  readonly resolve: (result: R) => void;
  readonly reject: (error: unknown) => void;
}

/**
 * Group commit: items submitted while a write is in flight are written together by the next
 * one, so a burst of concurrent requests costs a few transactions instead of one each. Each
 * caller's promise settles only when the write holding its item has committed (or failed).
 * There is no timer: an idle queue flushes on the next turn of the event loop, so a lone
 * request waits for nothing but its own write.
 */
export class GroupCommit<T, R> {
  private queue: Waiting<T, R>[] = [];
  private inFlight = 0;
  private scheduled = false;

  /**
   * @param write writes a batch and returns one settled result per item, in order (so one item
   * can fail alone); when it throws, every item of the batch fails with that error.
   * @param maxBatch most items per write.
   * @param maxInFlight most writes running at once.
   */
  constructor(
    private readonly write: (items: T[]) => Promise<PromiseSettledResult<R>[]>,
    private readonly maxBatch: number,
    private readonly maxInFlight: number,
  ) {}

  /** Queues `item`; resolves with its result once its batch committed. */
  submit(item: T): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled || this.inFlight >= this.maxInFlight || this.queue.length === 0) {
      return;
    }
    this.scheduled = true;
    // NOTE: one turn of the event loop lets requests parsed in the same turn join the batch.
    setImmediate(() => {
      this.scheduled = false;
      this.flush();
    });
  }

  private flush(): void {
    while (this.inFlight < this.maxInFlight && this.queue.length > 0) {
      const batch = this.queue.splice(0, this.maxBatch);
      this.inFlight += 1;
      this.write(batch.map((waiting) => waiting.item))
        .then(
          (results) =>
            batch.forEach((waiting, i) => {
              const result = results[i];
              if (result.status === 'fulfilled') {
                waiting.resolve(result.value);
              } else {
                waiting.reject(result.reason);
              }
            }),
          (error: unknown) => batch.forEach((waiting) => waiting.reject(error)),
        )
        .finally(() => {
          this.inFlight -= 1;
          this.schedule();
        });
    }
  }
}
