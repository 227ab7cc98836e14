import { sberDescriptor } from './sber.descriptor';
import { sberEndpoint } from './sber.provider';

describe('sberDescriptor', () => {
  // NOTE: retention and the CLI find a provider's descriptor by the kind its endpoints carry.
  it('describes the kind sberEndpoint() makes by default', () => {
    const endpoint = sberEndpoint({ name: 'sber', callbackToken: 'sber-descriptor' });
    expect(endpoint.provider.kind).toBe(sberDescriptor.kind);
  });
});
