import { qvardDescriptor } from './qvard.descriptor';
import { qvardEndpoint } from './qvard.provider';

describe('qvardDescriptor', () => {
  // NOTE: retention and the CLI find a provider's descriptor by the kind its endpoints carry.
  it('describes the kind qvardEndpoint() makes by default', () => {
    const endpoint = qvardEndpoint({ name: 'qvard', secret: 'qvard-descriptor' });
    expect(endpoint.provider.kind).toBe(qvardDescriptor.kind);
  });
});
