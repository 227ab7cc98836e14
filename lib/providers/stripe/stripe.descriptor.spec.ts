import { stripeDescriptor } from './stripe.descriptor';
import { stripeEndpoint } from './stripe.provider';

describe('stripeDescriptor', () => {
  // NOTE: retention and the CLI find a provider's descriptor by the kind its endpoints carry.
  it('describes the kind stripeEndpoint() makes by default', () => {
    const endpoint = stripeEndpoint({ name: 'stripe', secret: 'whsec_descriptor' });
    expect(endpoint.provider.kind).toBe(stripeDescriptor.kind);
  });
});
