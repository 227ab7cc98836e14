/**
 * Tells whoever listens in this process that a new pending event was stored, so the
 * dispatcher starts at once instead of at its next poll.
 */
export class InboxSignal {
  private readonly listeners = new Set<() => void>();

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
