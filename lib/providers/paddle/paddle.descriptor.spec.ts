import { paddleDescriptor } from './paddle.descriptor';
import { paddleEndpoint } from './paddle.provider';

describe('paddleDescriptor', () => {
  // NOTE: retention and the CLI find a provider's descriptor by the kind its endpoints carry.
  it('describes the kind paddleEndpoint() makes by default', () => {
    const endpoint = paddleEndpoint({ name: 'paddle', secret: 'pdl_ntfset_descriptor' });
    expect(endpoint.provider.kind).toBe(paddleDescriptor.kind);
  });
});
