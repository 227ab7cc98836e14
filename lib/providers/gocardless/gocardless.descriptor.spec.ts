import { goCardlessDescriptor } from './gocardless.descriptor';
import { goCardlessEndpoint } from './gocardless.provider';

describe('goCardlessDescriptor', () => {
  // NOTE: retention and the CLI find a provider's descriptor by the kind its endpoints carry.
  it('describes the kind goCardlessEndpoint() makes by default', () => {
    const endpoint = goCardlessEndpoint({ name: 'gocardless', secret: 'gc-descriptor' });
    expect(endpoint.provider.kind).toBe(goCardlessDescriptor.kind);
  });

  it('signs what the CLI sends with --secret, as the endpoint accepts it', () => {
    const text =
      '{"events":[{"id":"EV0000000001","resource_type":"payments","action":"confirmed"}]}';
    const delivery = goCardlessDescriptor.signing.sign({
      text,
      json: JSON.parse(text),
      secret: 'gc-descriptor',
      options: {},
      readFile: () => '',
    });
    const endpoint = goCardlessEndpoint({ name: 'gocardless', secret: 'gc-descriptor' });
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
