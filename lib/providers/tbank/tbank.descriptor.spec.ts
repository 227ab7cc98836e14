import { tbankDescriptor } from './tbank.descriptor';
import { tbankEndpoint } from './tbank.provider';

describe('tbankDescriptor', () => {
  // NOTE: retention and the CLI find a provider's descriptor by the kind its endpoints carry.
  it('describes the kind tbankEndpoint() makes by default', () => {
    const endpoint = tbankEndpoint({ name: 'tbank', password: 'tbank-descriptor' });
    expect(endpoint.provider.kind).toBe(tbankDescriptor.kind);
  });
});
