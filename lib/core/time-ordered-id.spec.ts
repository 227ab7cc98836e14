import { timeOrderedId } from './time-ordered-id';

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('timeOrderedId', () => {
  it('is a version 7 UUID carrying the time in milliseconds', () => {
    const at = Date.UTC(2026, 10, 30, 6, 45, 12, 345);
    const id = timeOrderedId(at);
    expect(id).toMatch(UUID_V7);
    expect(parseInt(id.replace(/-/g, '').slice(0, 12), 16)).toBe(at);
  });

  it('sorts ids of later milliseconds after earlier ones, as text', () => {
    const start = Date.UTC(2026, 0, 1);
    const ids = Array.from({ length: 2_000 }, (_, i) => timeOrderedId(start + i * 7));
    expect([...ids].sort()).toEqual(ids);
  });

  it('never repeats, within one millisecond either', () => {
    const at = Date.now();
    const ids = Array.from({ length: 10_000 }, () => timeOrderedId(at));
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.every((id) => UUID_V7.test(id))).toBe(true);
  });
});
