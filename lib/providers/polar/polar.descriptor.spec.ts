import { polarDescriptor } from './polar.descriptor';
import { polarEndpoint } from './polar.provider';

describe('polarDescriptor', () => {
  // NOTE: retention and the CLI find a provider's descriptor by the kind its endpoints carry.
  it('describes the kind polarEndpoint() makes by default', () => {
    const endpoint = polarEndpoint({ name: 'polar', secret: 'whsec_polar-descriptor' });
    expect(endpoint.provider.kind).toBe(polarDescriptor.kind);
  });
});
