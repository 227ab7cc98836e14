import { PAYPAL_TEST_CA_PEM, PAYPAL_TEST_CERTIFICATE_PEM } from './paypal-test-certificate';
import { paypalDescriptor } from './paypal.descriptor';
import { paypalEndpoint } from './paypal.provider';

describe('paypalDescriptor', () => {
  // NOTE: retention and the CLI find a provider's descriptor by the kind its endpoints carry.
  it('describes the kind paypalEndpoint() makes by default', () => {
    const endpoint = paypalEndpoint({
      name: 'paypal',
      webhookId: 'WH-DESCRIPTOR',
      certificateResolver: async () => PAYPAL_TEST_CERTIFICATE_PEM,
      trustedRoots: PAYPAL_TEST_CA_PEM,
    });
    expect(endpoint.provider.kind).toBe(paypalDescriptor.kind);
  });
});
