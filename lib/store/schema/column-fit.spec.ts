import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { fitColumn, fitsColumn, withoutRefusedCharacters } from './column-fit';

const codePoints = (value: string) => [...value].length;
const sha256 = (value: string | Buffer) => createHash('sha256').update(value).digest('hex');

/** Strings with what real and hostile values hold: NUL, controls, astral and unpaired halves. */
const anyValue = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 600 }),
  fc.string({
    unit: fc.constantFrom('a', '\u0000', '\u0007', '\uD83D', '\uDE00', 'é'),
    maxLength: 300,
  }),
  fc.string({ unit: 'grapheme', maxLength: 400 }),
);
const columnLength = fc.constantFrom(8, 16, 32, 36, 64, 128, 255);

describe('fitColumn', () => {
  it('keeps a value that fits exactly as it is', () => {
    expect(fitColumn('EUR', 8)).toBe('EUR');
    expect(fitColumn('x'.repeat(255), 255)).toBe('x'.repeat(255));
    expect(fitColumn('\u0007tab\tand bell', 64)).toBe('\u0007tab\tand bell');
    // NOTE: PostgreSQL counts characters, not UTF-16 units: 8 emoji fit a varchar(8).
    expect(fitColumn('😀'.repeat(8), 8)).toBe('😀'.repeat(8));
  });

  it('shortens a long value to its beginning, "~" and the SHA-256 of the whole value', () => {
    const currency = 'USD-EXTENDED';
    expect(fitColumn(currency, 8)).toBe(`USD~${sha256(currency).slice(0, 4)}`);
    const id = `evt_${'x'.repeat(300)}`;
    expect(fitColumn(id, 255)).toBe(`${id.slice(0, 190)}~${sha256(id)}`);
    expect(fitColumn(id, 64)).toBe(`${id.slice(0, 31)}~${sha256(id).slice(0, 32)}`);
  });

  it('replaces NUL and unpaired UTF-16 halves, and adds the digest so the value stays told apart', () => {
    expect(fitColumn('\u0000', 255)).toBe(`\uFFFD~${sha256(Buffer.from([0]))}`);
    expect(fitColumn('a\u0000b', 255)).not.toBe(fitColumn('a\uFFFDb', 255));
    expect(fitColumn('a\uD800', 255)).not.toBe(fitColumn('a\uD801', 255));
    expect(fitColumn('a\u0000b', 8)).toMatch(/^a\uFFFDb~[0-9a-f]{4}$/);
  });

  it('never splits a character in two when it shortens', () => {
    const value = `a${'😀'.repeat(300)}`;
    const stored = fitColumn(value, 255);
    expect(stored).toBe(`a${'😀'.repeat(189)}~${sha256(value)}`);
    expect(fitsColumn(stored, 255)).toBe(true);
  });

  it('only replaces refused characters in a column without a length (text)', () => {
    expect(fitColumn(`${'e'.repeat(5000)}\u0000`, undefined)).toBe(`${'e'.repeat(5000)}\uFFFD`);
    expect(fitColumn('plain', undefined)).toBe('plain');
  });

  it('gives every value a stored form that fits, holds nothing refused and is the same each time', () => {
    fc.assert(
      fc.property(anyValue, columnLength, (value, length) => {
        const stored = fitColumn(value, length);
        expect(codePoints(stored)).toBeLessThanOrEqual(length);
        expect(stored).not.toContain('\u0000');
        expect(withoutRefusedCharacters(stored)).toBe(stored);
        expect(fitColumn(value, length)).toBe(stored);
        expect(fitColumn(stored, length)).toBe(stored);
        expect(stored === value).toBe(fitsColumn(value, length));
      }),
      { numRuns: 2000 },
    );
  });

  it('keeps two values apart when their beginnings are the same', () => {
    fc.assert(
      fc.property(anyValue, anyValue, columnLength, (a, b, length) => {
        fc.pre(a !== b);
        const prefix = 'p'.repeat(300);
        expect(fitColumn(prefix + a, length)).not.toBe(fitColumn(prefix + b, length));
      }),
      { numRuns: 1000 },
    );
  });
});
