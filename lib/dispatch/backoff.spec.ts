import { retryDelayMs } from './backoff';

describe('retryDelayMs', () => {
  it('doubles from the base delay and stays between half and all of it', () => {
    expect(retryDelayMs(1, 5000, 3_600_000, () => 0)).toBe(2500);
    expect(retryDelayMs(1, 5000, 3_600_000, () => 1)).toBe(5000);
    expect(retryDelayMs(2, 5000, 3_600_000, () => 1)).toBe(10_000);
    expect(retryDelayMs(4, 5000, 3_600_000, () => 0.5)).toBe(30_000);
  });

  it('never exceeds the cap, however many attempts', () => {
    for (let attempt = 1; attempt <= 60; attempt++) {
      const delay = retryDelayMs(attempt, 5000, 3_600_000);
      expect(delay).toBeGreaterThan(0);
      expect(delay).toBeLessThanOrEqual(3_600_000);
    }
    expect(retryDelayMs(40, 5000, 3_600_000, () => 0)).toBe(1_800_000);
  });

  it('spreads the default 25 attempts over about a day or more (5 s base, 3 h cap)', () => {
    const span = (random: () => number) => {
      let total = 0;
      for (let attempt = 1; attempt < 25; attempt++) {
        total += retryDelayMs(attempt, 5000, 3 * 3_600_000, random);
      }
      return total / 3_600_000;
    };
    expect(span(() => 0)).toBeGreaterThan(20);
    expect(span(() => 1)).toBeLessThan(48);
  });
});
