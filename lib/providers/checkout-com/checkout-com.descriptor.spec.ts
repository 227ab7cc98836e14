import { checkoutComDescriptor } from './checkout-com.descriptor';
import { checkoutComEndpoint } from './checkout-com.provider';

describe('checkoutComDescriptor', () => {
  // NOTE: retention and the CLI find a provider's descriptor by the kind its endpoints carry.
  it('describes the kind checkoutComEndpoint() makes by default', () => {
    const endpoint = checkoutComEndpoint({ name: 'checkout-com', signatureKey: 'cko-descriptor' });
    expect(endpoint.provider.kind).toBe(checkoutComDescriptor.kind);
    expect(checkoutComEndpoint.kind).toBe(checkoutComDescriptor.kind);
  });

  it('signs for the CLI with --secret and --authorization', () => {
    const text = '{"id":"evt_1","type":"payment_captured","data":{}}';
    const input = { text, json: JSON.parse(text), readFile: () => '' };
    const delivery = checkoutComDescriptor.signing.sign({
      ...input,
      secret: 'cli-key',
      options: { authorization: 'cli-auth' },
    });
    expect(delivery).toMatchObject({
      provider: 'checkout-com',
      body: text,
      eventId: 'evt_1',
      headers: { authorization: 'cli-auth' },
    });
    expect(() => checkoutComDescriptor.signing.sign({ ...input, options: {} })).toThrow(
      '--provider checkout-com needs --secret',
    );
  });
});
