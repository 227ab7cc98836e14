import type { DispatchPause } from '../store/ports/event-history';
import { Clock } from './clock';

/** Every endpoint, or every handler, in a pause. */
const ANY = '*';

/** How long the pauses read from the store are used before they are read again. */
export const PAUSES_REFRESH_MS = 1_000;

/**
 * The pauses of dispatch as this process knows them: read from the store at most once per
 * {@link PAUSES_REFRESH_MS} while events are processed, so a pause made on any instance holds
 * on every instance within that time.
 */
export class DispatchPauses {
  private known: readonly DispatchPause[] = [];
  private readAt = Number.NEGATIVE_INFINITY;
  private reading?: Promise<readonly DispatchPause[]>;

  constructor(
    private readonly read: () => Promise<DispatchPause[]>,
    private readonly clock: Clock,
    private readonly refreshMs: number = PAUSES_REFRESH_MS,
  ) {}

  /** The keys among `handlerKeys` that a pause holds on `endpoint`. */
  async held(endpoint: string, handlerKeys: readonly string[]): Promise<Set<string>> {
    const pauses = await this.current();
    const held = new Set<string>();
    for (const pause of pauses) {
      if (pause.endpoint !== ANY && pause.endpoint !== endpoint) {
        continue;
      }
      for (const key of handlerKeys) {
        if (pause.handler === ANY || pause.handler === key) {
          held.add(key);
        }
      }
    }
    return held;
  }

  /** Reads the pauses again on the next check (this process changed them). */
  forget(): void {
    this.readAt = Number.NEGATIVE_INFINITY;
  }

  private async current(): Promise<readonly DispatchPause[]> {
    const now = this.clock.now().getTime();
    if (now - this.readAt < this.refreshMs) {
      return this.known;
    }
    // NOTE: one read at a time; the events processed meanwhile wait for it.
    this.reading ??= this.read().finally(() => {
      this.reading = undefined;
    });
    this.known = await this.reading;
    this.readAt = now;
    return this.known;
  }
}
