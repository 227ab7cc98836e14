import { dateOf } from './stored-date';

describe('dateOf', () => {
  it('reads the UTC text SQLite returns for datetime aggregates', () => {
    expect(dateOf('2025-03-01 12:30:45.123')).toEqual(new Date('2025-03-01T12:30:45.123Z'));
    expect(dateOf('2025-03-01 12:30:45')).toEqual(new Date('2025-03-01T12:30:45Z'));
  });

  it('keeps the Date pg returns and reads text with an offset', () => {
    const at = new Date('2025-03-01T12:30:45.123Z');
    expect(dateOf(at)).toBe(at);
    expect(dateOf('2025-03-01 14:30:45.123+02')).toEqual(at);
  });

  it('reads nothing from nothing or from text that is no date', () => {
    expect(dateOf(null)).toBeNull();
    expect(dateOf(undefined)).toBeNull();
    expect(dateOf('yesterday')).toBeNull();
  });
});
