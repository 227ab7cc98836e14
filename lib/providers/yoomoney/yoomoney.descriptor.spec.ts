import { yoomoneyDescriptor } from './yoomoney.descriptor';
import { yoomoneyEndpoint } from './yoomoney.provider';

describe('yoomoneyDescriptor', () => {
  // NOTE: retention and the CLI find a provider's descriptor by the kind its endpoints carry.
  it('describes the kind yoomoneyEndpoint() makes by default', () => {
    const endpoint = yoomoneyEndpoint({
      name: 'yoomoney',
      notificationSecret: 'yoomoney-descriptor',
    });
    expect(endpoint.provider.kind).toBe(yoomoneyDescriptor.kind);
  });
});
