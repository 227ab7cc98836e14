import { ExpiringMap } from './expiring-map';

describe('ExpiringMap', () => {
  let now = 0;
  const clock = () => now;

  beforeEach(() => {
    now = 1_000_000;
  });

  it('keeps an entry for the time it was set with', () => {
    const map = new ExpiringMap<string, number>(10, clock);
    map.set('a', 1, 500);
    now += 499;
    expect(map.get('a')).toBe(1);
    now += 1;
    expect(map.get('a')).toBeUndefined();
    expect(map.size).toBe(0);
  });

  it('holds at most its capacity: expired entries go first, then the one set longest ago', () => {
    const map = new ExpiringMap<string, number>(3, clock);
    map.set('long', 1, 60_000);
    map.set('short', 2, 100);
    map.set('other', 3, 60_000);
    now += 200;
    map.set('new', 4, 60_000);
    expect([map.get('long'), map.get('short'), map.get('other'), map.get('new')]).toEqual([
      1,
      undefined,
      3,
      4,
    ]);
    map.set('newer', 5, 60_000);
    expect(map.get('long')).toBeUndefined();
    expect(map.size).toBe(3);
  });

  it('makes an entry set again the newest, and forgets one set for no time', () => {
    const map = new ExpiringMap<string, number>(2, clock);
    map.set('a', 1, 1_000);
    map.set('b', 2, 1_000);
    map.set('a', 3, 1_000);
    map.set('c', 4, 1_000);
    expect([map.get('a'), map.get('b'), map.get('c')]).toEqual([3, undefined, 4]);
    map.set('a', 5, 0);
    expect(map.get('a')).toBeUndefined();
  });

  it('refuses a capacity that cannot work', () => {
    expect(() => new ExpiringMap(0)).toThrow(/capacity must be a whole number, 1 or more/);
    expect(() => new ExpiringMap(1.5)).toThrow(RangeError);
  });
});
