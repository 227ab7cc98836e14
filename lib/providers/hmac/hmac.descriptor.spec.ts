import { hmacDescriptor } from './hmac.descriptor';
import { hmacEndpoint } from './hmac.provider';

describe('hmacDescriptor', () => {
  // NOTE: retention and the CLI find a provider's descriptor by the kind its endpoints carry.
  it('describes the kind hmacEndpoint() makes by default', () => {
    const endpoint = hmacEndpoint({ name: 'hmac', secret: 'hmac-descriptor' });
    expect(endpoint.provider.kind).toBe(hmacDescriptor.kind);
  });
});
