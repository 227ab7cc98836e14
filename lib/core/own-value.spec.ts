import { ownValue } from './own-value';

describe('ownValue', () => {
  const table = { 'payment.created': 'payment.succeeded' };

  it('finds what the table holds', () => {
    expect(ownValue(table, 'payment.created')).toBe('payment.succeeded');
  });

  it.each(['constructor', 'toString', '__proto__', 'hasOwnProperty', 'valueOf'])(
    'finds nothing for the inherited %s',
    (key) => {
      expect(ownValue(table, key)).toBeUndefined();
    },
  );
});
