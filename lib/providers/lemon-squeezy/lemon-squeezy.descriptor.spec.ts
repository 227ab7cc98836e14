import { lemonSqueezyDescriptor } from './lemon-squeezy.descriptor';
import { lemonSqueezyEndpoint } from './lemon-squeezy.provider';

describe('lemonSqueezyDescriptor', () => {
  // NOTE: retention and the CLI find a provider's descriptor by the kind its endpoints carry.
  it('describes the kind lemonSqueezyEndpoint() makes by default', () => {
    const endpoint = lemonSqueezyEndpoint({
      name: 'lemon-squeezy',
      signingSecret: 'lemon-squeezy-descriptor',
    });
    expect(endpoint.provider.kind).toBe(lemonSqueezyDescriptor.kind);
    expect(lemonSqueezyEndpoint.kind).toBe(lemonSqueezyDescriptor.kind);
  });

  it('signs for the CLI with --secret, and says so when it is missing', () => {
    const text = '{"meta":{"event_name":"order_created"},"data":{"type":"orders","id":"1"}}';
    const input = { text, json: JSON.parse(text), options: {}, readFile: () => '' };
    const delivery = lemonSqueezyDescriptor.signing.sign({ ...input, secret: 'cli-secret' });
    expect(delivery).toMatchObject({ provider: 'lemon-squeezy', body: text });
    expect(() => lemonSqueezyDescriptor.signing.sign(input)).toThrow(
      '--provider lemon-squeezy needs --secret',
    );
  });
});
