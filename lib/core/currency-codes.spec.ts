import { isCurrencyCode } from './currency-codes';

describe('isCurrencyCode', () => {
  it.each(['USD', 'eur', 'Rub', 'JPY', 'KWD', 'XAU', 'XTS', 'XXX', 'XCG', 'ZWG', 'SLL'])(
    'knows %s',
    (code) => {
      expect(isCurrencyCode(code)).toBe(true);
    },
  );

  it.each(['', 'US', 'USDT', 'ABC', 'RUR', 'U$D', 'constructor', '__proto__'])(
    'does not know %p',
    (code) => {
      expect(isCurrencyCode(code)).toBe(false);
    },
  );
});
