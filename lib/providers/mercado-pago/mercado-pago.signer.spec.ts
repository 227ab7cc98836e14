import { WebhookSignatureValidator } from 'mercadopago';
import { createHmac } from 'node:crypto';
import { mercadoPagoFixtures } from './mercado-pago.fixtures';
import { signMercadoPagoDelivery } from './mercado-pago.signer';
import { mercadoPagoEndpoint, mercadoPagoProvider } from './mercado-pago.provider';
import { storedEventIds } from '../../spec-support/stored-event-ids';

// The Orders page's example (data.id, x-request-id, ts) under the documentation's sample secret;
// the official SDK's WebhookSignatureValidator signs data.id as sent; the documentation asks for it
// lower-cased (both are accepted by the endpoint).
const VECTOR = {
  secret: 'your_secret_key_here',
  requestId: '2066ca19-c6f1-498a-be75-1923005edd06',
};

describe('signMercadoPagoDelivery', () => {
  it.each([
    [
      'ORD01JQ4S4KY8HWQ6NA5PXB65B3D3',
      1742505638683,
      'fb15ae6472eb449173c556793205d77787d58f384d183bb5bc3b724c27bd103c',
    ],
    [
      'ord01jq4s4ky8hwq6na5pxb65b3d3',
      1742505638683,
      '633f91233312dd391ec75fa0bea539cfc2d6c4918873305b84a96cc1c58db71c',
    ],
    // NOTE: the Webhooks page's payment data.id and its ts in seconds.
    ['999999999', 1704908010, '688a0d38e33107d4b2d452a85915d494fc120daf7e962608ab6811f80cd7ad22'],
  ])('reproduces the vector for data.id %s and ts %s', (dataId, ts, expected) => {
    const sent = signMercadoPagoDelivery({
      payload: { id: 123456, type: 'order', action: 'order.processed', data: { id: dataId } },
      secret: VECTOR.secret,
      timestamp: ts,
      requestId: VECTOR.requestId,
    });
    const manifest = `id:${dataId};request-id:${VECTOR.requestId};ts:${ts};`;
    expect(createHmac('sha256', VECTOR.secret).update(manifest).digest('hex')).toBe(expected);
    expect(sent.headers['x-signature']).toBe(`ts=${ts},v1=${expected}`);
    expect(sent.headers['x-request-id']).toBe(VECTOR.requestId);
  });

  it("makes headers the official SDK's WebhookSignatureValidator accepts, and it refuses a changed data.id", () => {
    const at = Math.floor(Date.now() / 1000);
    const sent = signMercadoPagoDelivery({
      payload: mercadoPagoFixtures.orderProcessed({ orderId: 'order-42' }),
      secret: 'mercado-pago-sdk-secret',
      timestamp: at,
      requestId: 'b7c1d2e3-0000-4000-8000-000000000001',
    });
    const dataId = String((JSON.parse(sent.body) as { data: { id: string } }).data.id);
    const check = (id: string) =>
      WebhookSignatureValidator.validate({
        xSignature: sent.headers['x-signature'],
        xRequestId: sent.headers['x-request-id'],
        dataId: id,
        secret: 'mercado-pago-sdk-secret',
        toleranceSeconds: 300,
      });
    expect(() => check(dataId)).not.toThrow();
    expect(() => check(`${dataId}0`)).toThrow(/SignatureMismatch|signature/i);
  });

  it('signs a numeric data.id as its digits and leaves the id part out without data.id', () => {
    const at = 1704908010;
    const numeric = signMercadoPagoDelivery({
      payload: '{"id":1,"type":"payment","data":{"id":999999999}}',
      secret: 's',
      timestamp: at,
      requestId: 'r',
    });
    const none = signMercadoPagoDelivery({
      payload: '{"id":1,"type":"mp-connect"}',
      secret: 's',
      timestamp: at,
      requestId: 'r',
    });
    const hmac = (text: string) => createHmac('sha256', 's').update(text).digest('hex');
    expect(numeric.headers['x-signature']).toBe(
      `ts=${at},v1=${hmac(`id:999999999;request-id:r;ts:${at};`)}`,
    );
    expect(none.headers['x-signature']).toBe(`ts=${at},v1=${hmac(`request-id:r;ts:${at};`)}`);
  });

  it('defaults to now in Unix seconds and a random UUID request id, the body as written', () => {
    const payload = mercadoPagoFixtures.paymentUpdated();
    const before = Math.floor(Date.now() / 1000);
    const sent = signMercadoPagoDelivery({ payload, secret: 'secret' });
    const ts = Number(/^ts=(\d+),v1=[0-9a-f]{64}$/.exec(sent.headers['x-signature'])?.[1]);
    expect(ts).toBeGreaterThanOrEqual(before);
    expect(ts).toBeLessThanOrEqual(before + 1);
    expect(sent.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(sent).toMatchObject({
      provider: 'mercado-pago',
      method: 'POST',
      body: JSON.stringify(payload),
      headers: { 'content-type': 'application/json' },
    });
  });

  it('names the id an endpoint stores the notification under', async () => {
    const payload = mercadoPagoFixtures.orderProcessed({ orderId: 'order-42' });
    const delivery = signMercadoPagoDelivery({ payload, secret: 'mercado-pago-key-secret' });
    const endpoint = mercadoPagoEndpoint({
      name: 'mercado-pago',
      secret: 'mercado-pago-key-secret',
      verifyWithProvider: false,
    });
    expect(await storedEventIds(endpoint, delivery)).toEqual([String(payload.id)]);
    expect(delivery.eventId).toBe(String(payload.id));
  });
});

describe('mercadoPagoProvider', () => {
  it('signs for the CLI with the x-request-id of --request-id, the one flag it lists', () => {
    const endpoint = mercadoPagoEndpoint({
      name: 'mp',
      secret: 'cli-secret',
      verifyWithProvider: false,
    });
    const text = '{"id":1,"type":"payment","action":"payment.updated","data":{"id":"1319485746"}}';
    const sent = mercadoPagoProvider.descriptor.signing.sign({
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
    expect(mercadoPagoProvider.descriptor.signing.flags.map((flag) => flag.name)).toEqual([
      'request-id',
    ]);
  });
});

describe('mercadoPagoFixtures', () => {
  it('uses Mercado Pago’s id formats and writes the total in the currency’s decimals', () => {
    const payment = mercadoPagoFixtures.paymentUpdated();
    expect(payment).toMatchObject({
      type: 'payment',
      action: 'payment.updated',
      api_version: 'v1',
    });
    expect(payment.data.id).toMatch(/^[1-9]\d{10}$/);
    expect(String(payment.id)).toMatch(/^[1-9]\d{10}$/);
    const order = mercadoPagoFixtures.orderProcessed({ orderId: 'order-42', amount: 1999 });
    expect(order.data).toMatchObject({
      external_reference: 'order-42',
      status: 'processed',
      status_detail: 'accredited',
      total_paid_amount: '19.99',
    });
    expect(order.data.id).toMatch(/^ORD01[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(
      mercadoPagoFixtures.orderProcessed({ amount: 15990, currency: 'CLP' }).data.total_paid_amount,
    ).toBe('15990');
    expect(mercadoPagoFixtures.orderFailed().data.total_paid_amount).toBe('0.00');
  });
});
