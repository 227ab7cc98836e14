import { resolveIdempotentOptions } from './idempotent.decorator';
import { catchDeprecationWarnings } from '../spec-support/deprecation-warnings';

const warned = catchDeprecationWarnings();
const HOUR = 3_600_000;

describe("@Idempotent()'s ttl and lease, read as ttlMs and leaseMs", () => {
  it('keeps an answer and locks a key for as long as the old names say, warning once each', () => {
    const resolved = resolveIdempotentOptions({ ttl: 2 * HOUR, lease: 5000 });
    expect(resolved).toMatchObject({ ttlMs: 2 * HOUR, leaseMs: 5000 });
    resolveIdempotentOptions({ ttl: 3 * HOUR, lease: 6000 });
    expect(warned('NPW_DEP_IDEMPOTENT_TTL')).toEqual([
      '@Idempotent(): `ttl` (milliseconds) is deprecated and will be removed in 2.0: use `ttlMs`.',
    ]);
    expect(warned('NPW_DEP_IDEMPOTENT_LEASE')).toEqual([
      '@Idempotent(): `lease` (milliseconds) is deprecated and will be removed in 2.0: use `leaseMs`.',
    ]);
  });

  it("checks an old name by the new name's range, naming the new name", () => {
    expect(() => resolveIdempotentOptions({ ttl: 1000 })).toThrow(/`ttlMs` must be/);
    expect(() => resolveIdempotentOptions({ lease: 10 })).toThrow(/`leaseMs` must be/);
  });

  it('refuses both names with different values, and takes them with the same value', () => {
    expect(() => resolveIdempotentOptions({ ttl: 2 * HOUR, ttlMs: 3 * HOUR })).toThrow(
      /`ttl` and `ttlMs` are both given, with different values.*remove `ttl` and keep `ttlMs`/,
    );
    expect(() => resolveIdempotentOptions({ lease: 5000, leaseMs: 6000 })).toThrow(
      /remove `lease` and keep `leaseMs`/,
    );
    expect(resolveIdempotentOptions({ ttl: 2 * HOUR, ttlMs: 2 * HOUR }).ttlMs).toBe(2 * HOUR);
  });
});
