import { PROVIDER_DESCRIPTORS } from './descriptors';
import { dedupFloorFor, MIN_DEDUP_DAYS, PROVIDER_RETRY_HORIZONS } from './provider-retry-horizons';

describe('dedupFloorFor', () => {
  it('is 7 days for providers that retry for 3 days or less, naming the longest of them', () => {
    const floor = dedupFloorFor([{ kind: 'tbank' }, { kind: 'stripe', endpoint: 'cards' }]);
    expect(floor.days).toBe(MIN_DEDUP_DAYS);
    expect(floor.longest).toMatchObject({
      provider: 'Stripe',
      days: 3,
      source: { endpoint: 'cards' },
    });
  });

  it("is Adyen's 30 days as soon as one Adyen endpoint is there", () => {
    expect(dedupFloorFor([{ kind: 'stripe' }, { kind: 'adyen', endpoint: 'eu' }])).toMatchObject({
      days: 30,
      longest: { provider: 'Adyen', source: { kind: 'adyen', endpoint: 'eu' } },
    });
  });

  it('is 7 days for kinds without a documented horizon (hmac, a custom kind)', () => {
    expect(dedupFloorFor([{ kind: 'hmac' }, { kind: 'github' }, { kind: 'constructor' }])).toEqual({
      days: MIN_DEDUP_DAYS,
      longest: undefined,
    });
  });

  it('keeps every documented horizon within the minimum but Adyen', () => {
    const longer = PROVIDER_DESCRIPTORS.filter(
      (descriptor) => (descriptor.retryHorizon?.days ?? 0) > MIN_DEDUP_DAYS,
    ).map((descriptor) => descriptor.kind);
    expect(longer).toEqual(['adyen']);
  });

  it('publishes the horizon of every provider that documents one in PROVIDER_RETRY_HORIZONS', () => {
    const undocumented = PROVIDER_DESCRIPTORS.filter((descriptor) => !descriptor.retryHorizon);
    // NOTE: the generic HMAC scheme and Qvard have no one sender's schedule; CloudPayments and
    // Robokassa publish none.
    expect(undocumented.map((descriptor) => descriptor.kind).sort()).toEqual([
      'cloudpayments',
      'hmac',
      'qvard',
      'robokassa',
    ]);
    expect(Object.keys(PROVIDER_RETRY_HORIZONS).sort()).toEqual(
      PROVIDER_DESCRIPTORS.filter((descriptor) => descriptor.retryHorizon)
        .map((descriptor) => descriptor.kind)
        .sort(),
    );
    expect(PROVIDER_RETRY_HORIZONS.paypal).toEqual({
      provider: 'PayPal',
      days: 3,
      documented: 'up to 25 retries over 3 days',
    });
  });
});
