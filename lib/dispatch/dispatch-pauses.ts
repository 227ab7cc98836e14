import type { DispatchPause } from '../store/ports/pause-queries.port';
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
  /** Counts {@link forget}s: a read started before the last one may predate a change. */
  private generation = 0;
  private reading?: { readonly generation: number; readonly pauses: Promise<DispatchPause[]> };

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

  /**
   * Reads the pauses again on the next check (this process changed them). A read already under
   * way may have begun before the change: neither it nor what it finds is used from now on.
   */
  forget(): void {
    this.generation += 1;
    this.readAt = Number.NEGATIVE_INFINITY;
  }

  private async current(): Promise<readonly DispatchPause[]> {
    const now = this.clock.now().getTime();
    if (now - this.readAt < this.refreshMs) {
      return this.known;
    }
    const { generation } = this;
    // NOTE: one read at a time per generation; the events processed meanwhile wait for it.
    if (this.reading?.generation !== generation) {
      const pauses = this.read();
      this.reading = { generation, pauses };
      const done = () => {
        if (this.reading?.pauses === pauses) this.reading = undefined;
      };
      pauses.then(done, done);
    }
    const pauses = await this.reading.pauses;
    if (generation === this.generation) {
      this.known = pauses;
      this.readAt = now;
    }
    return pauses;
  }
}
