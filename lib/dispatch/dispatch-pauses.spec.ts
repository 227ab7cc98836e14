import type { DispatchPause } from '../store/ports/pause-queries.port';
import { DispatchPauses } from './dispatch-pauses';

const pause = (endpoint: string, handler = '*') => ({ endpoint, handler }) as DispatchPause;

/** A store read the test answers when it chooses. */
class Reads {
  readonly pending: ((pauses: DispatchPause[]) => void)[] = [];
  readonly read = () =>
    new Promise<DispatchPause[]>((resolve) => {
      this.pending.push(resolve);
    });
}

describe('DispatchPauses', () => {
  let now = 0;
  const clock = { now: () => new Date(now) };

  beforeEach(() => {
    now = 1_000_000;
  });

  it('reads the pauses at most once per refresh, events meanwhile waiting for the one read', async () => {
    const reads = new Reads();
    const pauses = new DispatchPauses(reads.read, clock, 1_000);
    const first = pauses.held('stripe', ['A.a']);
    const second = pauses.held('stripe', ['A.a']);
    expect(reads.pending).toHaveLength(1);
    reads.pending[0]([pause('stripe')]);
    expect(await first).toEqual(new Set(['A.a']));
    expect(await second).toEqual(new Set(['A.a']));
    now += 999;
    expect(await pauses.held('stripe', ['A.a'])).toEqual(new Set(['A.a']));
    expect(reads.pending).toHaveLength(1);
  });

  it('holds a pause made here at once, even while a read begun before it is still under way', async () => {
    const reads = new Reads();
    const pauses = new DispatchPauses(reads.read, clock, 1_000);
    const before = pauses.held('stripe', ['A.a']);
    // The pause is stored and this process forgets what it knew, while the read is under way.
    pauses.forget();
    const after = pauses.held('stripe', ['A.a']);
    expect(reads.pending).toHaveLength(2);
    reads.pending[1]([pause('stripe')]);
    reads.pending[0]([]);
    expect(await before).toEqual(new Set());
    expect(await after).toEqual(new Set(['A.a']));
    // The older read's answer, which came last, is not the one kept.
    expect(await pauses.held('stripe', ['A.a'])).toEqual(new Set(['A.a']));
    expect(reads.pending).toHaveLength(2);
  });

  it('reads again after the refresh, and takes a pause of every endpoint or every handler', async () => {
    const reads = new Reads();
    const pauses = new DispatchPauses(reads.read, clock, 1_000);
    const first = pauses.held('stripe', ['A.a', 'B.b']);
    reads.pending[0]([]);
    expect(await first).toEqual(new Set());
    now += 1_000;
    const later = pauses.held('paypal', ['A.a', 'B.b']);
    reads.pending[1]([pause('*', 'B.b'), pause('stripe')]);
    expect(await later).toEqual(new Set(['B.b']));
  });
});
