import { TokenBucket } from './token-bucket';

describe('TokenBucket', () => {
  let now = 0;
  const clock = () => now;

  beforeEach(() => {
    now = 1_000_000;
  });

  it('starts full and refuses once its capacity is spent', () => {
    const bucket = new TokenBucket(2, 3, clock);
    expect([1, 2, 3, 4].map(() => bucket.tryTake())).toEqual([true, true, true, false]);
    expect(bucket.msUntil()).toBe(500);
  });

  it('refills at its rate, never past its capacity', () => {
    const bucket = new TokenBucket(10, 5, clock);
    for (let i = 0; i < 5; i += 1) bucket.tryTake();
    now += 200;
    expect(bucket.tryTake(2)).toBe(true);
    expect(bucket.tryTake()).toBe(false);
    now += 60_000;
    expect(bucket.tryTake(5)).toBe(true);
    expect(bucket.tryTake()).toBe(false);
  });

  it('takes on credit and says how long the work must wait, so waiting callers keep the rate', () => {
    const bucket = new TokenBucket(40, 1, clock);
    const starts: number[] = [];
    for (let i = 0; i < 200; i += 1) {
      now += bucket.take();
      starts.push(now);
    }
    // Every window of one second holds at most the rate, plus the unit at its edge.
    for (const start of starts) {
      const inWindow = starts.filter((t) => t >= start && t <= start + 1000).length;
      expect(inWindow).toBeLessThanOrEqual(41);
    }
    expect(starts[199] - starts[0]).toBeGreaterThanOrEqual(199 * 25 - 199);
  });

  it('refuses a rate or capacity that cannot work', () => {
    expect(() => new TokenBucket(0, 1)).toThrow(RangeError);
    expect(() => new TokenBucket(1, 0.5)).toThrow(RangeError);
    expect(() => new TokenBucket(Number.NaN, 1)).toThrow(RangeError);
  });
});
