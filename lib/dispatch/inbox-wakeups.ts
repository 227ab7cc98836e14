import type { WorkQueue } from '../store/ports';
import type { DispatchLogger } from './dispatch-logger';
import { describeError } from './handler-failure';

/** Where a loop hears of events stored by this process (the ingress's insert signal). */
export interface LocalInsertSignal {
  /** Calls `listener` on each insert; returns a function that stops calling it. */
  subscribe(listener: () => void): () => void;
}

/**
 * What wakes a loop over the inbox before its poll interval ends: an event stored by this
 * process, or by another instance (PostgreSQL LISTEN/NOTIFY). The in-process worker and the
 * BullMQ relay each sleep on one.
 */
export class InboxWakeups {
  /** Whether a wake-up came since the last {@link clear}. */
  requested = false;
  private sleeper?: () => void;
  private unsubscribe?: () => void;
  private unwatch?: Promise<() => Promise<void>>;

  constructor(
    private readonly signal: LocalInsertSignal,
    private readonly worker: Pick<WorkQueue, 'watch'>,
    private readonly logger: DispatchLogger,
  ) {}

  /** Starts listening for local and other instances' inserts. */
  listen(): void {
    this.unsubscribe = this.signal.subscribe(() => this.wake());
    this.unwatch = this.worker
      .watch(() => this.wake())
      .catch((error: unknown) => {
        this.logger.warn(
          `Listening for other instances' events failed; polling only: ${describeError(error)}`,
        );
        return async () => undefined;
      });
  }

  /** Stops listening, and wakes the loop so it sees it should stop. */
  async close(): Promise<void> {
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    await (
      await this.unwatch
    )?.();
    this.unwatch = undefined;
    this.wake();
  }

  /** Asks the loop to look for due events now. */
  wake(): void {
    this.requested = true;
    this.sleeper?.();
  }

  /** Forgets the wake-ups so far, before a look at the inbox. */
  clear(): void {
    this.requested = false;
  }

  /** Waits `ms`, or less when woken. */
  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.sleeper = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.sleeper = done;
    });
  }
}
