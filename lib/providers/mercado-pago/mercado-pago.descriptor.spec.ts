import { mercadoPagoDescriptor } from './mercado-pago.descriptor';
import { mercadoPagoEndpoint } from './mercado-pago.provider';

describe('mercadoPagoDescriptor', () => {
  // NOTE: retention and the CLI find a provider's descriptor by the kind its endpoints carry.
  it('describes the kind mercadoPagoEndpoint() makes by default', () => {
    const endpoint = mercadoPagoEndpoint({
      name: 'mercado-pago',
      secret: 'mercado-pago-descriptor',
      verifyWithProvider: false,
    });
    expect(endpoint.provider.kind).toBe(mercadoPagoDescriptor.kind);
    expect(mercadoPagoEndpoint.kind).toBe(mercadoPagoDescriptor.kind);
  });

  it('signs for the CLI what the endpoint accepts, with the flags it lists', () => {
    const endpoint = mercadoPagoEndpoint({
      name: 'mp',
      secret: 'cli-secret',
      verifyWithProvider: false,
    });
    const text = '{"id":1,"type":"payment","action":"payment.updated","data":{"id":"1319485746"}}';
    const sent = mercadoPagoDescriptor.signing.sign({
      text,
      json: JSON.parse(text),
      secret: 'cli-secret',
      timestamp: Math.floor(Date.now() / 1000),
      options: { 'request-id': 'cli-request-1' },
      readFile: () => '',
    });
    expect(sent.headers['x-request-id']).toBe('cli-request-1');
    expect(() =>
      endpoint.provider.verify({
        rawBody: Buffer.from(sent.body),
        headers: sent.headers,
        receivedAt: new Date(),
      }),
    ).not.toThrow();
    expect(mercadoPagoDescriptor.signing.flags.map((flag) => flag.name)).toEqual(['request-id']);
  });
});
