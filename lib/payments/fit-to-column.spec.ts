import { fitToColumn } from './fit-to-column';

describe('fitToColumn', () => {
  it('keeps a value that fits and holds no refused character', () => {
    expect(fitToColumn('evt_1', 255)).toBe('evt_1');
    expect(fitToColumn('x'.repeat(255), 255)).toBe('x'.repeat(255));
    expect(fitToColumn('ünïcödé ☕', 9)).toBe('ünïcödé ☕');
  });

  it('replaces NUL and keeps the value recognizable, the same every time', () => {
    const fitted = fitToColumn('evt\u0000abc', 255);
    expect(fitted).not.toContain('\u0000');
    expect(fitted).toMatch(/^evt\ufffdabc~[0-9a-f]{64}$/);
    expect(fitToColumn('evt\u0000abc', 255)).toBe(fitted);
    expect(fitToColumn('evt\u0000abd', 255)).not.toBe(fitted);
    expect(fitToColumn('a\u0000b')).toBe('a\ufffdb');
  });

  it('shortens a value longer than the column to its length', () => {
    const fitted = fitToColumn('y'.repeat(300), 64);
    expect(fitted).toHaveLength(64);
    expect(fitted).toMatch(/^y{31}~[0-9a-f]{32}$/);
  });

  it.each([0, 7, 8.5, Number.NaN, -255])(
    'refuses a column length of %p, naming the rule',
    (length) => {
      expect(() => fitToColumn('evt_1', length)).toThrow(
        /maxLength must be the column's length, a whole number of 8 or more/,
      );
    },
  );
});
