import { createHmac, createPublicKey, generateKeyPairSync, verify } from 'node:crypto';
import { notificationsOf } from '../notifications';
import { sberEndpoint } from './sber.provider';
import { InboundWebhook } from '../webhook-provider.interface';
import { sberFixtures } from './sber.fixtures';
import { sberChecksumString, signSberDelivery } from './sber.signer';
import { SignedDelivery } from '../signed-delivery';
import { storedEventIds } from '../../spec-support/stored-event-ids';

// NOTE: the gateway docs' symmetric vector (providers.md §5).
const DOCS_TOKEN = 'ooc7slpvc61k7sf7ma7p4hrefr';
const DOCS_PAYLOAD = {
  mdOrder: '06cf5599-3f17-7c86-bdbc-bd7d00a8b38b',
  operation: 'approved',
  orderNumber: '2003',
  status: '1',
};
const DOCS_CHECKSUM = 'EAF2FB72CAB99FD5067F4BA493DD84F4D79C1589FDE8ED29622F0F07215AA972';
const TOKEN = 'sber_callback_token';

const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const PUBLIC_PEM = publicKey.export({ type: 'spki', format: 'pem' }).toString();

/** As the ingress hands it over: a GET's query string as latin1 bytes, a POST's body as is. */
function inbound(delivery: SignedDelivery): InboundWebhook {
  return {
    rawBody: Buffer.from(delivery.body, delivery.method === 'GET' ? 'latin1' : 'utf8'),
    headers: delivery.headers,
    receivedAt: new Date(),
  };
}

describe('signSberDelivery', () => {
  it('reproduces the documented checksum in a GET query string by default', () => {
    expect(signSberDelivery({ payload: DOCS_PAYLOAD, callbackToken: DOCS_TOKEN })).toEqual({
      provider: 'sber',
      method: 'GET',
      body:
        'mdOrder=06cf5599-3f17-7c86-bdbc-bd7d00a8b38b&operation=approved&orderNumber=2003' +
        `&status=1&checksum=${DOCS_CHECKSUM}`,
      headers: {},
      eventId: '06cf5599-3f17-7c86-bdbc-bd7d00a8b38b:approved:1',
    });
  });

  it('sends a POST as a form body with its content type', () => {
    const delivery = signSberDelivery({
      payload: DOCS_PAYLOAD,
      callbackToken: DOCS_TOKEN,
      method: 'POST',
    });
    expect(delivery.method).toBe('POST');
    expect(delivery.headers).toEqual({ 'content-type': 'application/x-www-form-urlencoded' });
    expect(delivery.body).toContain(`checksum=${DOCS_CHECKSUM}`);
  });

  it('builds the documented checksum string', () => {
    expect(sberChecksumString({ ...DOCS_PAYLOAD, checksum: 'x', sign_alias: 'y' })).toBe(
      'mdOrder;06cf5599-3f17-7c86-bdbc-bd7d00a8b38b;operation;approved;orderNumber;2003;status;1;',
    );
  });

  it('matches an independent node:crypto HMAC over decoded values', () => {
    const payload = sberFixtures.deposited({ orderNumber: 'заказ 7', amount: 19200 });
    const delivery = signSberDelivery({ payload, callbackToken: TOKEN });
    const text =
      `amount;19200;mdOrder;${payload.mdOrder};operation;deposited;` +
      'orderNumber;заказ 7;status;1;';
    const expected = createHmac('sha256', TOKEN).update(text, 'utf8').digest('hex').toUpperCase();
    expect(new URLSearchParams(delivery.body).get('checksum')).toBe(expected);
    expect(delivery.body).toContain('orderNumber=%D0%B7%D0%B0%D0%BA%D0%B0%D0%B7+7');
  });

  it('signs with an RSA key as SHA-512, verifiable by node:crypto and the provider', () => {
    const delivery = signSberDelivery({
      payload: {
        ...sberFixtures.deposited({ orderNumber: '2003' }),
        sign_alias: 'SHA-512 with RSA',
      },
      privateKey,
    });
    const params = Object.fromEntries(new URLSearchParams(delivery.body));
    expect(params.sign_alias).toBe('SHA-512 with RSA');
    expect(params.checksum).toMatch(/^[0-9A-F]{512}$/);
    expect(
      verify(
        'sha512',
        Buffer.from(sberChecksumString(params)),
        createPublicKey(PUBLIC_PEM),
        Buffer.from(params.checksum, 'hex'),
      ),
    ).toBe(true);
    const provider = sberEndpoint({ name: 'sber', publicKey: PUBLIC_PEM }).provider;
    expect(() => provider.verify(inbound(delivery))).not.toThrow();
  });

  it('replaces a checksum already in the payload', () => {
    const delivery = signSberDelivery({
      payload: { ...DOCS_PAYLOAD, checksum: 'stale' },
      callbackToken: DOCS_TOKEN,
    });
    expect(new URLSearchParams(delivery.body).getAll('checksum')).toEqual([DOCS_CHECKSUM]);
  });

  it.each([
    ['neither', {}],
    ['both', { callbackToken: TOKEN, privateKey }],
  ])('refuses %s of callbackToken and privateKey', (_label, keys) => {
    expect(() => signSberDelivery({ payload: DOCS_PAYLOAD, ...keys })).toThrow(
      /exactly one of callbackToken and privateKey/,
    );
  });

  describe.each(['GET', 'POST'] as const)('round trip by %s', (method) => {
    const provider = sberEndpoint({ name: 'sber', callbackToken: TOKEN }).provider;

    it.each([
      ['approved', 'payment.authorized'],
      ['deposited', 'payment.succeeded'],
      ['reversed', 'payment.canceled'],
      ['refunded', 'refund.succeeded'],
      ['declinedByTimeout', 'payment.failed'],
    ] as const)('sberFixtures.%s is accepted as %s', (fixture, type) => {
      // NOTE: a refund's amount is its own (operationRefundedAmount), not the order's `amount`.
      const payload =
        fixture === 'refunded'
          ? sberFixtures.refunded({
              orderNumber: 'order-7',
              amount: 50000,
              operationRefundedAmount: 19200,
            })
          : sberFixtures[fixture]({ orderNumber: 'order-7', amount: 19200 });
      const delivery = signSberDelivery({ payload, callbackToken: TOKEN, method });
      expect(() => provider.verify(inbound(delivery))).not.toThrow();
      expect(notificationsOf(provider.normalize(inbound(delivery)))[0]).toMatchObject({
        type,
        merchantRef: 'order-7',
        paymentRef: payload.mdOrder,
        amount: 19200,
        currency: 'RUB',
      });
    });

    it('a failed deposit is accepted as payment.failed', () => {
      const payload = sberFixtures.deposited({ orderNumber: 'order-8', success: false });
      const delivery = signSberDelivery({ payload, callbackToken: TOKEN, method });
      expect(notificationsOf(provider.normalize(inbound(delivery)))[0].type).toBe('payment.failed');
    });

    it('is refused under another token', () => {
      const payload = sberFixtures.deposited({ orderNumber: 'order-9' });
      const delivery = signSberDelivery({ payload, callbackToken: 'another', method });
      expect(() => provider.verify(inbound(delivery))).toThrow(/checksum does not match/);
    });
  });

  it('names the key a Sber endpoint stores the callback under, signed with either key', async () => {
    const payload = sberFixtures.deposited({ orderNumber: 'order-42' });
    const symmetric = signSberDelivery({ callbackToken: TOKEN, payload });
    const asymmetric = signSberDelivery({ privateKey, payload, method: 'POST' });
    const byToken = sberEndpoint({ name: 'sber', callbackToken: TOKEN });
    const byKey = sberEndpoint({ name: 'sber', publicKey: PUBLIC_PEM });
    expect(await storedEventIds(byToken, symmetric)).toEqual([`${payload.mdOrder}:deposited:1`]);
    expect(await storedEventIds(byKey, asymmetric)).toEqual([`${payload.mdOrder}:deposited:1`]);
    expect([symmetric.eventId, asymmetric.eventId]).toEqual([
      `${payload.mdOrder}:deposited:1`,
      `${payload.mdOrder}:deposited:1`,
    ]);
  });
});

describe('sberFixtures', () => {
  it('builds a callback in the gateway format', () => {
    expect(sberFixtures.deposited({ orderNumber: '2003', amount: 35000099 })).toEqual({
      mdOrder: expect.stringMatching(
        /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/,
      ),
      orderNumber: '2003',
      operation: 'deposited',
      status: '1',
      amount: '35000099',
    });
  });

  it('keeps one mdOrder per order number', () => {
    expect(sberFixtures.approved({ orderNumber: 'a' }).mdOrder).toBe(
      sberFixtures.deposited({ orderNumber: 'a' }).mdOrder,
    );
    expect(sberFixtures.approved({ orderNumber: 'b' }).mdOrder).not.toBe(
      sberFixtures.approved({ orderNumber: 'a' }).mdOrder,
    );
  });

  it('adds refundedAmount to a refund when given', () => {
    expect(sberFixtures.refunded({ orderNumber: 'a', refundedAmount: 5000 })).toMatchObject({
      operation: 'refunded',
      refundedAmount: '5000',
    });
  });

  it('adds the refund’s own amount and id when given', () => {
    const refund = sberFixtures.refunded({
      orderNumber: 'a',
      operationRefundedAmount: 3000,
      externalRefundId: 'refund-1',
    });
    expect(refund).toMatchObject({ operationRefundedAmount: '3000', externalRefundId: 'refund-1' });
    expect(sberFixtures.refunded({ orderNumber: 'a' })).not.toHaveProperty('externalRefundId');
  });
});
