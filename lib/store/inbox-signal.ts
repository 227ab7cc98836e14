/**
 * Tells whoever listens in this process that a new pending event was stored, so the
 * dispatcher starts at once instead of at its next poll.
 */
export class InboxSignal {
  private readonly listeners = new Set<() => void>();
  private committing = 0;

  /**
   * Deliveries of this process waiting for their events to be committed, so for their answer.
   * Many at once mean the answer path is busy: the dispatcher then runs fewer handlers.
   */
  get answersWaiting(): number {
    return this.committing;
  }

  /** Counts a delivery as waiting for its commit until the returned function is called. */
  commitStarted(): () => void {
    this.committing += 1;
    let done = false;
    return () => {
      if (!done) {
        done = true;
        this.committing -= 1;
      }
    };
  }

  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  notify(): void {
    for (const listener of this.listeners) {
      listener();
    }
  }
}
