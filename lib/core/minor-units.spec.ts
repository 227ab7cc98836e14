import fc from 'fast-check';
import { currencyExponent, formatMinorUnits, toMinorUnits } from './minor-units';

describe('minor units', () => {
  it.each([
    ['USD', 2],
    ['eur', 2],
    ['JPY', 0],
    ['KRW', 0],
    ['CLP', 0],
    ['KWD', 3],
    ['BHD', 3],
    ['CLF', 4],
    ['HUF', 2],
    ['TWD', 2],
  ])('knows the ISO 4217 exponent of %s (%i)', (currency, exponent) => {
    expect(currencyExponent(currency)).toBe(exponent);
  });

  it.each(['', 'US', 'USDT', '12A', 'U$D'])('has no exponent for %p', (code) => {
    expect(currencyExponent(code)).toBeUndefined();
  });

  it.each([
    ['10.99', 'USD', 1099],
    ['10', 'USD', 1000],
    ['10.9', 'USD', 1090],
    ['0.01', 'USD', 1],
    ['0', 'EUR', 0],
    ['10.990', 'USD', 1099],
    ['1000', 'JPY', 1000],
    ['1000.00', 'JPY', 1000],
    ['1.5', 'KWD', 1500],
    ['0.001', 'KWD', 1],
    ['90071992547409.91', 'USD', 9007199254740991],
  ])('converts %s %s to %i', (value, currency, minor) => {
    expect(toMinorUnits(value, currency)).toBe(minor);
  });

  it.each([
    ['10.999', 'USD', 'more decimals than the currency has'],
    ['1000.5', 'JPY', 'a fraction of a yen'],
    ['-1.00', 'USD', 'a sign'],
    ['1e3', 'USD', 'an exponent'],
    ['1,000.00', 'USD', 'a group separator'],
    [' 1.00', 'USD', 'a space'],
    ['.50', 'USD', 'no whole part'],
    ['1.', 'USD', 'no fraction digits'],
    ['', 'USD', 'nothing'],
    ['10.00', 'US', 'a bad currency'],
    ['90071992547409.92', 'USD', 'a value beyond 2^53 minor units'],
  ])('refuses %p %s (%s)', (value, currency) => {
    expect(toMinorUnits(value, currency)).toBeUndefined();
  });

  it.each([
    [1099, 'USD', '10.99'],
    [5, 'USD', '0.05'],
    [0, 'USD', '0.00'],
    [1000, 'JPY', '1000'],
    [1, 'KWD', '0.001'],
  ])('formats %i %s as %s', (amount, currency, text) => {
    expect(formatMinorUnits(amount, currency)).toBe(text);
  });

  it('refuses to format a fractional or negative amount, or a bad currency', () => {
    expect(() => formatMinorUnits(10.5, 'USD')).toThrow(RangeError);
    expect(() => formatMinorUnits(-1, 'USD')).toThrow(/non-negative integer/);
    expect(() => formatMinorUnits(1, 'dollars')).toThrow(/not a currency code/);
  });

  it('round-trips every amount in every exponent', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }),
        fc.constantFrom('USD', 'JPY', 'KWD', 'CLF'),
        (amount, currency) => {
          expect(toMinorUnits(formatMinorUnits(amount, currency), currency)).toBe(amount);
        },
      ),
    );
  });
});
