import { pacedBatchOf, ReplayPace } from './replay-pace';

/** The most events within one window of `windowMs`, ends included, of batches at `times`. */
function mostWithin(times: readonly number[], batch: number, windowMs: number): number {
  let most = 0;
  let first = 0;
  for (let last = 0; last < times.length; last++) {
    while (times[last] - times[first] > windowMs) {
      first += 1;
    }
    most = Math.max(most, (last - first + 1) * batch);
  }
  return most;
}

describe('ReplayPace', () => {
  /** How late the pace's code runs after its timers fire: grows as a busy machine would make it. */
  let lag = 0;
  const now = () => Date.now() + lag;

  beforeEach(() => {
    jest.useFakeTimers({ now: 1_000_000 });
    lag = 0;
  });

  afterEach(() => {
    jest.useRealTimers();
  });

  /** Resolves `pending` by moving the fake clock on a millisecond at a time. */
  async function settle<T>(pending: Promise<T>): Promise<T> {
    let done = false;
    let value: T | undefined;
    void pending.then((result) => {
      done = true;
      value = result;
    });
    for (let steps = 0; !done; steps++) {
      if (steps > 120_000) {
        throw new Error('the pace never let the batch through');
      }
      await jest.advanceTimersByTimeAsync(1);
    }
    return value as T;
  }

  /**
   * The times `count` batches are let through, each batch taking `work()` ms to run; `busy`,
   * the pace's code now and then runs up to 80 ms late.
   */
  async function batches(
    pace: ReplayPace,
    count: number,
    work: () => number,
    busy = true,
  ): Promise<number[]> {
    const times: number[] = [];
    for (let i = 0; i < count; i++) {
      times.push((await settle(pace.next()))!.getTime());
      lag += busy && Math.random() < 0.2 ? Math.floor(Math.random() * 80) : 0;
      jest.advanceTimersByTime(work());
    }
    return times;
  }

  it('takes one event per transaction up to 99 a second, one more per 50 a second above', () => {
    expect([1, 40, 99, 100, 149, 150, 1_000].map((rate) => pacedBatchOf(rate, 500))).toEqual([
      1, 1, 1, 2, 2, 3, 20,
    ]);
    expect(pacedBatchOf(0.5, 500)).toBe(1);
    expect(pacedBatchOf(100_000, 500)).toBe(500);
  });

  it.each([
    ['fast batches', () => 2],
    ['slow and uneven batches on a busy machine', () => Math.floor(Math.random() * 40)],
  ])('holds 40 a second over every window from the start, with %s', async (_name, work) => {
    const pace = new ReplayPace(40, { maxBatch: 500, now });
    const times = await batches(pace, 200, work);
    expect(mostWithin(times, 1, 1_000)).toBeLessThanOrEqual(41);
    expect(mostWithin(times, 1, 250)).toBeLessThanOrEqual(11);
    expect(mostWithin(times, 1, 4_090)).toBeLessThanOrEqual(Math.floor(40 * 4.09) + 1);
    expect(times.filter((time) => time - times[0] <= 4_090).length).toBeLessThanOrEqual(164);
  });

  it('keeps to the rate over a long run when the batches are fast', async () => {
    const pace = new ReplayPace(40, { maxBatch: 500, now });
    const times = await batches(pace, 81, () => 1, false);
    // 80 gaps of 25 ms: two seconds, give or take the millisecond a timer adds.
    expect(times[80] - times[0]).toBeGreaterThanOrEqual(2_000);
    expect(times[80] - times[0]).toBeLessThan(2_200);
  });

  it('holds rate × T + batch with several events per transaction', async () => {
    const pace = new ReplayPace(1_000, { maxBatch: 500, now });
    expect(pace.batch).toBe(20);
    const times = await batches(pace, 150, () => Math.floor(Math.random() * 15));
    expect(mostWithin(times, 20, 1_000)).toBeLessThanOrEqual(1_020);
    expect(mostWithin(times, 20, 100)).toBeLessThanOrEqual(120);
  });

  it('waits after the batch another instance recorded last, not longer than one spacing', async () => {
    const last = new Date(Date.now() - 10);
    const carried = new ReplayPace(40, { maxBatch: 500, lastBatchAt: last, now });
    expect((await settle(carried.next()))!.getTime()).toBeGreaterThanOrEqual(last.getTime() + 25);

    const ahead = new Date(Date.now() + 3_600_000);
    const start = Date.now();
    const skewed = new ReplayPace(40, { maxBatch: 500, lastBatchAt: ahead, now });
    expect((await settle(skewed.next()))!.getTime()).toBeLessThanOrEqual(start + 26);
  });

  it('stops waiting at once when its signal aborts', async () => {
    const pace = new ReplayPace(0.1, { maxBatch: 500, now });
    expect(await settle(pace.next())).toBeInstanceOf(Date);
    const controller = new AbortController();
    const waiting = pace.next(controller.signal);
    await jest.advanceTimersByTimeAsync(1_000);
    controller.abort();
    const started = Date.now();
    expect(await settle(waiting)).toBeNull();
    expect(Date.now() - started).toBeLessThanOrEqual(1);
  });
});
