import { isAcknowledged } from './inbox-sampler';

describe('isAcknowledged', () => {
  it('counts every delivery answered with the success answer, and no refusal', () => {
    expect(['accepted', 'duplicate', 'ignored'].every((d) => isAcknowledged(d as never))).toBe(
      true,
    );
    expect(
      [
        'rejected_signature',
        'rejected_timestamp',
        'invalid',
        'store_failed',
        'unknown_endpoint',
      ].some((d) => isAcknowledged(d as never)),
    ).toBe(false);
  });
});
