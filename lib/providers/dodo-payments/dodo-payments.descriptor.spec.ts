import { dodoPaymentsDescriptor } from './dodo-payments.descriptor';
import { dodoPaymentsEndpoint } from './dodo-payments.provider';

describe('dodoPaymentsDescriptor', () => {
  // NOTE: retention and the CLI find a provider's descriptor by the kind its endpoints carry.
  it('describes the kind dodoPaymentsEndpoint() makes by default', () => {
    const endpoint = dodoPaymentsEndpoint({
      name: 'dodo',
      secret: `whsec_${Buffer.from('dodo-descriptor').toString('base64')}`,
    });
    expect(endpoint.provider.kind).toBe(dodoPaymentsDescriptor.kind);
  });

  it('signs for the CLI under its aliases’ kind with a whsec_ secret only', () => {
    const secret = `whsec_${Buffer.alloc(24, 1).toString('base64')}`;
    const input = { text: '{}', json: {}, secret, options: {}, readFile: () => '' };
    expect(dodoPaymentsDescriptor.signing.sign(input).provider).toBe('dodo-payments');
    expect(() =>
      dodoPaymentsDescriptor.signing.sign({ ...input, secret: 'sk_live_not_a_secret' }),
    ).toThrow(/whsec_/);
    expect(dodoPaymentsDescriptor.aliases).toEqual(['dodo', 'dodopayments']);
  });
});
