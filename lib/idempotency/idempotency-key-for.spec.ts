import { createHash } from 'node:crypto';
import { idempotencyKeyFor } from './idempotency-key-for';

/** The documented construction, computed independently of the helper. */
function expectedKey(scope: string, parts: string[]): string {
  const digest = createHash('sha256').update(JSON.stringify(parts)).digest('base64url');
  return `${scope}_${digest.slice(0, 32)}`;
}

describe('idempotencyKeyFor', () => {
  it('is the scope, an underscore and 32 base64url characters of the SHA-256 of the parts', () => {
    const key = idempotencyKeyFor('refund', 'order-1042', 1);
    expect(key).toBe(expectedKey('refund', ['order-1042', '1']));
    expect(key).toMatch(/^refund_[A-Za-z0-9_-]{32}$/);
    expect(key.length).toBeLessThanOrEqual(255);
  });

  it('gives the same operation the same key every time', () => {
    expect(idempotencyKeyFor('pay', 'order-7', 1999)).toBe(
      idempotencyKeyFor('pay', 'order-7', 1999),
    );
    expect(idempotencyKeyFor('pay', 'order-7', 5)).toBe(idempotencyKeyFor('pay', 'order-7', '5'));
    expect(idempotencyKeyFor('pay', 10n)).toBe(idempotencyKeyFor('pay', '10'));
  });

  it('gives different operations, scopes and part boundaries different keys', () => {
    const keys = [
      idempotencyKeyFor('refund', 'order-7'),
      idempotencyKeyFor('pay', 'order-7'),
      idempotencyKeyFor('refund', 'order-8'),
      idempotencyKeyFor('refund', 'order-7', 1),
      idempotencyKeyFor('refund', 'a_b', 'c'),
      idempotencyKeyFor('refund', 'a', 'b_c'),
      idempotencyKeyFor('refund', 'a\nb'),
      idempotencyKeyFor('refund', 'a', 'b'),
    ];
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('is not the id it was made from', () => {
    const paymentId = 'pay_2f1c0e4a-8d0b-4d35-9a51-1e3c5f0a9b77';
    expect(idempotencyKeyFor('refund', paymentId)).not.toContain(paymentId);
  });

  it.each([
    ['an empty scope', ''],
    ['a scope with spaces', 'my refund'],
    ['a scope longer than 64 characters', 'x'.repeat(65)],
  ])('refuses %s', (_label, scope) => {
    expect(() => idempotencyKeyFor(scope, 'order-1')).toThrow(/scope must be 1 to 64/);
  });

  it('refuses a key without parts', () => {
    expect(() => idempotencyKeyFor('refund')).toThrow(/at least one part/);
  });

  it.each([
    ['undefined', undefined],
    ['null', null],
    ['an empty string', ''],
    ['NaN', Number.NaN],
    ['Infinity', Number.POSITIVE_INFINITY],
  ])('refuses a part that is %s (a missing id would merge operations)', (_label, part) => {
    expect(() => idempotencyKeyFor('refund', 'order-1', part as unknown as string)).toThrow(
      /part 2 .*non-empty string or a finite number/,
    );
  });
});
