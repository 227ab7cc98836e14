import { standardWebhooksDescriptor } from './standard-webhooks.descriptor';
import { standardWebhooksEndpoint } from './standard-webhooks.provider';

describe('standardWebhooksDescriptor', () => {
  // NOTE: retention and the CLI find a provider's descriptor by the kind its endpoints carry.
  it('describes the kind standardWebhooksEndpoint() makes by default', () => {
    const endpoint = standardWebhooksEndpoint({
      name: 'standard',
      secret: `whsec_${Buffer.from('descriptor').toString('base64')}`,
    });
    expect(endpoint.provider.kind).toBe(standardWebhooksDescriptor.kind);
  });
});
