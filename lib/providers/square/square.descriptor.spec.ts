import { squareDescriptor } from './square.descriptor';
import { squareEndpoint } from './square.provider';

describe('squareDescriptor', () => {
  // NOTE: retention and the CLI find a provider's descriptor by the kind its endpoints carry.
  it('describes the kind squareEndpoint() makes by default', () => {
    const endpoint = squareEndpoint({
      name: 'square',
      signatureKey: 'square-descriptor',
      notificationUrl: 'https://shop.example.test/webhooks/square',
    });
    expect(endpoint.provider.kind).toBe(squareDescriptor.kind);
  });
});
