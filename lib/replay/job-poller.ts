/**
 * The loop of a runner of jobs in the background: it looks for work every `pollMs`, and at once
 * when kicked, one look at a time; `stop()` aborts the signal the look watches and waits for it
 * to end, so a job under way is given back for any instance to carry on.
 */
export class JobPoller {
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private stopping = new AbortController();

  constructor(
    private readonly pollMs: number,
    private readonly look: (stopped: AbortSignal) => Promise<void>,
  ) {}

  /** Whether it looks every `pollMs` (started and not stopped since). */
  get started(): boolean {
    return this.timer !== undefined;
  }

  /** Looks every `pollMs`, and at once. */
  start(): void {
    if (this.stopping.signal.aborted) {
      this.stopping = new AbortController();
    }
    if (!this.timer) {
      this.timer = setInterval(() => this.kick(), this.pollMs);
      this.timer.unref();
    }
    this.kick();
  }

  /** Looks now, unless a look is under way or it was stopped. */
  kick(): void {
    if (this.stopping.signal.aborted || this.running) {
      return;
    }
    this.running = this.look(this.stopping.signal).finally(() => {
      this.running = undefined;
    });
  }

  /** Stops looking, and waits for the look under way to end. */
  async stop(): Promise<void> {
    this.stopping.abort();
    clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
  }
}
