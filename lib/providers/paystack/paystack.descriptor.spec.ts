import { paystackDescriptor } from './paystack.descriptor';
import { paystackEndpoint } from './paystack.provider';

const KEY = 'sk_test_descriptor0000000000000000000000';

describe('paystackDescriptor', () => {
  // NOTE: retention and the CLI find a provider's descriptor by the kind its endpoints carry.
  it('describes the kind paystackEndpoint() makes by default', () => {
    const endpoint = paystackEndpoint({ name: 'paystack', secretKey: KEY });
    expect(endpoint.provider.kind).toBe(paystackDescriptor.kind);
  });

  it('signs what the CLI sends with --secret, as the endpoint accepts it', () => {
    const text = '{"event":"charge.success","data":{"id":1,"status":"success"}}';
    const delivery = paystackDescriptor.signing.sign({
      text,
      json: JSON.parse(text),
      secret: KEY,
      options: {},
      readFile: () => '',
    });
    const endpoint = paystackEndpoint({ name: 'paystack', secretKey: KEY });
    expect(delivery.body).toBe(text);
    expect(() =>
      endpoint.provider.verify({
        rawBody: Buffer.from(delivery.body),
        headers: delivery.headers,
        receivedAt: new Date(),
      }),
    ).not.toThrow();
  });
});
