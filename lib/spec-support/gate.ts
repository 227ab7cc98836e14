/**
 * A promise the test settles when it chooses: a handler or a call told to wait for `opened`
 * holds what it holds (a transaction, a lease) until the test calls `open()`, however long the
 * test needs, and no longer.
 */
export class Gate {
  readonly opened: Promise<void>;
  private release!: () => void;

  constructor() {
    this.opened = new Promise<void>((resolve) => (this.release = resolve));
  }

  open(): void {
    this.release();
  }
}
