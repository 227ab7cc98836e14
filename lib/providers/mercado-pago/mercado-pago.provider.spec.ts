import { createHmac } from 'node:crypto';
import { rejection } from '../../spec-support/rejection';
import { notificationsOf } from '../notifications';
import {
  InboundWebhook,
  NormalizedNotification,
  WebhookProvider,
} from '../webhook-provider.interface';
import { mercadoPagoFixtures } from './mercado-pago.fixtures';
import { MercadoPagoEndpointOptions, mercadoPagoEndpoint } from './mercado-pago.provider';

// The Orders page's example notification (data.id, x-request-id, ts in milliseconds) under the
// secret of the documentation's code sample; v1 recomputed with node:crypto and accepted by the
// official SDK's WebhookSignatureValidator (mercadopago 3.3.0).
const VECTOR = {
  secret: 'your_secret_key_here',
  requestId: '2066ca19-c6f1-498a-be75-1923005edd06',
  dataId: 'ORD01JQ4S4KY8HWQ6NA5PXB65B3D3',
  ts: '1742505638683',
  lowerCaseV1: '633f91233312dd391ec75fa0bea539cfc2d6c4918873305b84a96cc1c58db71c',
  asSentV1: 'fb15ae6472eb449173c556793205d77787d58f384d183bb5bc3b724c27bd103c',
};
const VECTOR_BODY = JSON.stringify({
  action: 'order.processed',
  api_version: 'v1',
  application_id: '3292380386767339',
  date_created: '2021-11-01T02:02:02Z',
  id: '123456',
  live_mode: false,
  type: 'order',
  user_id: 3476216746,
  data: { id: VECTOR.dataId },
});

const SECRET = 'a3f1c9e27b6d48f0b5e2c7d9a1f04e6b8c2d7e9f1a3b5c7d9e0f2a4b6c8d0e1f';
const OTHER_SECRET = '7c0e5a9b2d4f6a8c0e2b4d6f8a1c3e5b7d9f1a3c5e7b9d0f2a4c6e8b0d2f4a6c';
const REQUEST_ID = 'bb56a2f1-6aae-46ac-982e-9dcd3581d08e';
const NOW = new Date('2026-03-02T15:04:05.000Z');
const NOW_SECONDS = Math.floor(NOW.getTime() / 1000);

/** `x-signature` computed here with node:crypto, as Mercado Pago's documentation describes. */
function independentSignature(
  dataId: string | undefined,
  ts: string | number = NOW_SECONDS,
  secret = SECRET,
  requestId = REQUEST_ID,
): string {
  const manifest = `${dataId === undefined ? '' : `id:${dataId};`}request-id:${requestId};ts:${ts};`;
  return `ts=${ts},v1=${createHmac('sha256', secret).update(manifest).digest('hex')}`;
}

function delivery(
  body: string | object,
  headers: Record<string, string>,
  receivedAt = NOW,
): InboundWebhook {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  return { rawBody: Buffer.from(text, 'utf8'), headers, receivedAt };
}

function signed(
  event: { data?: { id?: unknown } },
  options: { ts?: string | number; secret?: string; receivedAt?: Date } = {},
): InboundWebhook {
  const dataId = event.data?.id === undefined ? undefined : String(event.data.id);
  return delivery(
    event,
    {
      'x-signature': independentSignature(dataId, options.ts, options.secret),
      'x-request-id': REQUEST_ID,
    },
    options.receivedAt,
  );
}

function provider(options: Partial<MercadoPagoEndpointOptions> = {}): WebhookProvider {
  return mercadoPagoEndpoint({
    name: 'mercado-pago',
    secret: SECRET,
    verifyWithProvider: false,
    ...options,
  }).provider;
}

describe('mercadoPagoEndpoint', () => {
  describe('verify', () => {
    const vectorAt = new Date(Number(VECTOR.ts) + 1000);

    it.each([
      ['the lower-cased data.id the documentation asks for', VECTOR.lowerCaseV1],
      ['data.id as sent, as the official SDK signs it since 2026-06', VECTOR.asSentV1],
    ])('accepts the documented example signed over %s', (_label, v1) => {
      expect(
        independentSignature(
          VECTOR.dataId.toLowerCase(),
          VECTOR.ts,
          VECTOR.secret,
          VECTOR.requestId,
        ),
      ).toBe(`ts=${VECTOR.ts},v1=${VECTOR.lowerCaseV1}`);
      const request = delivery(
        VECTOR_BODY,
        { 'x-signature': `ts=${VECTOR.ts},v1=${v1}`, 'x-request-id': VECTOR.requestId },
        vectorAt,
      );
      expect(() => provider({ secret: VECTOR.secret }).verify(request)).not.toThrow();
    });

    it('accepts a payment notification with ts in seconds, as the Webhooks page shows it', () => {
      expect(() => provider().verify(signed(mercadoPagoFixtures.paymentUpdated()))).not.toThrow();
    });

    it('accepts ts in milliseconds, as the Orders page shows it', () => {
      const event = mercadoPagoFixtures.orderProcessed();
      expect(() => provider().verify(signed(event, { ts: NOW.getTime() }))).not.toThrow();
    });

    it('accepts a notification without data.id, whose manifest leaves the id part out', () => {
      const { data: _data, ...event } = mercadoPagoFixtures.paymentUpdated();
      expect(() => provider().verify(signed(event as { data?: { id?: unknown } }))).not.toThrow();
    });

    it('accepts either secret while two are configured (rotation)', () => {
      const rotating = provider({ secret: [OTHER_SECRET, SECRET] });
      const event = mercadoPagoFixtures.paymentUpdated();
      expect(() => rotating.verify(signed(event))).not.toThrow();
      expect(() => rotating.verify(signed(event, { secret: OTHER_SECRET }))).not.toThrow();
    });

    it('rejects a signature made with another secret, without echoing secret or signature', () => {
      const request = signed(mercadoPagoFixtures.paymentUpdated(), { secret: OTHER_SECRET });
      const error = rejection(() => provider().verify(request));
      expect(error).toMatchObject({ name: 'WebhookVerificationError', reason: 'bad_signature' });
      expect(error.message).toMatch(/secret signature/);
      expect(error.message).not.toContain(SECRET);
      expect(error.message).not.toContain(String(request.headers['x-signature']).slice(20));
    });

    it('rejects a body whose data.id was changed after signing', () => {
      const event = mercadoPagoFixtures.paymentUpdated({ paymentId: '1319485746' });
      const request = signed(event);
      const tampered = delivery(
        JSON.stringify(event).replace('1319485746', '1319485747'),
        request.headers as Record<string, string>,
      );
      expect(rejection(() => provider().verify(tampered))).toMatchObject({
        reason: 'bad_signature',
      });
    });

    it('rejects a changed x-request-id or ts', () => {
      const request = signed(mercadoPagoFixtures.paymentUpdated());
      const headers = request.headers as Record<string, string>;
      for (const changed of [
        { ...headers, 'x-request-id': 'bb56a2f1-6aae-46ac-982e-9dcd3581d08f' },
        {
          ...headers,
          'x-signature': headers['x-signature'].replace(/ts=\d+/, `ts=${NOW_SECONDS + 1}`),
        },
      ]) {
        expect(
          rejection(() => provider().verify(delivery(request.rawBody.toString(), changed))),
        ).toMatchObject({ reason: 'bad_signature' });
      }
    });

    it('refuses to read a request id moved into data.id (no x-request-id header)', () => {
      // NOTE: a captured signature over "id:1;request-id:r;ts:t;" must not verify a body whose
      // data.id is "1;request-id:r" sent without x-request-id.
      const body = {
        ...mercadoPagoFixtures.paymentUpdated(),
        data: { id: `1;request-id:${REQUEST_ID}` },
      };
      const headers = { 'x-signature': independentSignature('1') };
      expect(rejection(() => provider().verify(delivery(body, headers)))).toMatchObject({
        reason: 'missing_signature',
        message: 'Missing x-request-id header: Mercado Pago signs it with data.id and ts',
      });
    });

    it.each([
      ['absent', {}],
      ['empty', { 'x-signature': '' }],
      ['blank', { 'x-signature': '  ' }],
    ])('rejects a delivery whose x-signature is %s as missing_signature', (_label, headers) => {
      const request = delivery(mercadoPagoFixtures.paymentUpdated(), {
        ...headers,
        'x-request-id': REQUEST_ID,
      });
      expect(rejection(() => provider().verify(request))).toMatchObject({
        reason: 'missing_signature',
        message: 'Missing x-signature header',
      });
    });

    it.each([
      ['no ts', `v1=${'a'.repeat(64)}`, /exactly one ts=/],
      ['two ts', `ts=1,ts=2,v1=${'a'.repeat(64)}`, /exactly one ts=/],
      ['a ts that is not digits', `ts=1704908010.5,v1=${'a'.repeat(64)}`, /exactly one ts=/],
      ['no v1', `ts=${NOW_SECONDS}`, /no v1=<64 hex digits>/],
      ['a v1 that is not 64 hex digits', `ts=${NOW_SECONDS},v1=${'a'.repeat(63)}`, /no v1=/],
      ['only a v2', `ts=${NOW_SECONDS},v2=${'a'.repeat(64)}`, /no v1=/],
    ])('rejects an x-signature with %s as malformed', (_label, header, message) => {
      const request = delivery(mercadoPagoFixtures.paymentUpdated(), {
        'x-signature': header,
        'x-request-id': REQUEST_ID,
      });
      const error = rejection(() => provider().verify(request));
      expect(error).toMatchObject({ reason: 'bad_signature' });
      expect(error.message).toMatch(message);
    });

    it('rejects an x-request-id holding ";"', () => {
      const request = delivery(mercadoPagoFixtures.paymentUpdated(), {
        'x-signature': independentSignature('1'),
        'x-request-id': 'a;b',
      });
      expect(rejection(() => provider().verify(request))).toMatchObject({
        reason: 'bad_signature',
      });
    });

    it.each([
      ['seconds', (at: number) => Math.floor(at / 1000)],
      ['milliseconds', (at: number) => at],
    ])('refuses a ts (in %s) outside the tolerance and accepts one inside', (_unit, write) => {
      const event = mercadoPagoFixtures.paymentUpdated();
      const late = signed(event, { ts: write(NOW.getTime() - 301_000) });
      const inside = signed(event, { ts: write(NOW.getTime() - 299_000) });
      expect(rejection(() => provider().verify(late))).toMatchObject({
        reason: 'timestamp_out_of_window',
      });
      expect(() => provider().verify(inside)).not.toThrow();
      expect(() => provider({ toleranceSeconds: 600 }).verify(late)).not.toThrow();
      expect(() => provider({ toleranceSeconds: 0 }).verify(late)).not.toThrow();
    });

    it('throws WebhookPayloadError for a body that is no notification', () => {
      const request = delivery('{"data":', {
        'x-signature': independentSignature('1'),
        'x-request-id': REQUEST_ID,
      });
      expect(rejection(() => provider().verify(request))).toMatchObject({
        name: 'WebhookPayloadError',
      });
    });
  });

  describe('signedTransmission', () => {
    it('names x-request-id and ts, remembered for twice the tolerance', () => {
      const request = signed(mercadoPagoFixtures.paymentUpdated());
      expect(provider().signedTransmission?.(request)).toEqual({
        id: `${REQUEST_ID} ${NOW_SECONDS}`,
        replayableSeconds: 600,
      });
      expect(
        provider({ toleranceSeconds: 0 }).signedTransmission?.(request)?.replayableSeconds,
      ).toBe(8 * 24 * 60 * 60);
    });
  });

  describe('configuration', () => {
    function configError(options: Partial<MercadoPagoEndpointOptions>): string {
      const error = rejection(() =>
        mercadoPagoEndpoint({ name: 'mp', ...options } as MercadoPagoEndpointOptions),
      );
      expect(error.name).toBe('WebhookConfigurationError');
      return error.message;
    }

    it('answers an empty 200, and asks the API before handlers run by default', () => {
      const endpoint = mercadoPagoEndpoint({
        name: 'mp',
        secret: SECRET,
        api: { accessToken: 'APP_USR-1234567890123456-030215-0a1b2c3d4e5f-1197520450' },
      });
      expect(endpoint).toMatchObject({
        acknowledgement: { status: 200, body: '' },
        verifyWithProvider: true,
      });
      expect(endpoint.provider.kind).toBe('mercado-pago');
      expect(endpoint.statusClient?.kind).toBe('mercado-pago');
    });

    it('needs api unless verifyWithProvider is false, and says where the token is', () => {
      expect(configError({ secret: SECRET })).toMatch(/set api: \{ accessToken \}.*Access Token/);
      expect(
        mercadoPagoEndpoint({ name: 'mp', secret: SECRET, verifyWithProvider: false })
          .verifyWithProvider,
      ).toBe(false);
    });

    it('requires a secret without whitespace, never quoting it', () => {
      expect(configError({ verifyWithProvider: false })).toMatch(/has no usable secret/);
      const message = configError({ verifyWithProvider: false, secret: `${SECRET}\n` });
      expect(message).toMatch(/secret contains whitespace.*secret signature/);
      expect(message).not.toContain(SECRET);
    });

    it.each([[-1], [1.5]])('refuses a tolerance of %s', (toleranceSeconds) => {
      expect(configError({ verifyWithProvider: false, secret: SECRET, toleranceSeconds })).toMatch(
        /tolerance/,
      );
    });

    it('refuses a currency that is no ISO 4217 code', () => {
      expect(configError({ verifyWithProvider: false, secret: SECRET, currency: 'REAL' })).toMatch(
        /currency must be the ISO 4217 code/,
      );
    });
  });

  describe('normalize', () => {
    function normalize(
      event: object,
      options: Partial<MercadoPagoEndpointOptions> = {},
    ): NormalizedNotification {
      return notificationsOf(provider(options).normalize(delivery(event, {})))[0];
    }

    it.each([
      ['order.processed', mercadoPagoFixtures.orderProcessed(), 'payment.succeeded'],
      ['order.failed', mercadoPagoFixtures.orderFailed(), 'payment.failed'],
      ['order.canceled', mercadoPagoFixtures.orderCanceled(), 'payment.canceled'],
      ['order.expired', mercadoPagoFixtures.orderExpired(), 'payment.canceled'],
      ['order.refunded', mercadoPagoFixtures.orderRefunded(), 'refund.succeeded'],
      [
        'order.action_required',
        mercadoPagoFixtures.orderActionRequired(),
        'mercado-pago:order.action_required',
      ],
      ['payment.created', mercadoPagoFixtures.paymentCreated(), 'mercado-pago:payment.created'],
      ['payment.updated', mercadoPagoFixtures.paymentUpdated(), 'mercado-pago:payment.updated'],
    ])('maps %s to %s, keyed by the notification id', (nativeType, event, type) => {
      expect(normalize(event)).toMatchObject({
        type,
        nativeType,
        eventId: String(event.id),
        paymentRef: event.data.id,
      });
    });

    it('keeps an order type with no mapping, and topics without action, native', () => {
      const event = { ...mercadoPagoFixtures.orderProcessed(), type: 'topic_chargebacks_wh' };
      expect(normalize(event)).toMatchObject({
        type: 'mercado-pago:order.processed',
        paymentRef: undefined,
        merchantRef: undefined,
      });
      const { action: _action, ...noAction } = mercadoPagoFixtures.paymentUpdated();
      expect(normalize(noAction)).toMatchObject({
        type: 'mercado-pago:payment',
        nativeType: 'payment',
      });
    });

    it('reads a paid order: order id, external_reference, status, total_paid_amount in minor units', () => {
      const event = mercadoPagoFixtures.orderProcessed({
        orderId: 'order-42',
        mercadoPagoOrderId: 'ORD01JQ4S4KY8HWQ6NA5PXB65B3D3',
        amount: 1999,
        createdAt: new Date('2026-03-02T15:04:00.000Z'),
      });
      expect(normalize(event, { currency: 'BRL' })).toMatchObject({
        type: 'payment.succeeded',
        paymentRef: 'ORD01JQ4S4KY8HWQ6NA5PXB65B3D3',
        merchantRef: 'order-42',
        amount: 1999,
        currency: 'BRL',
        status: 'processed',
        occurredAt: new Date('2026-03-02T15:04:00.000Z'),
      });
    });

    it('puts a zero-decimal currency in minor units by its exponent (CLP)', () => {
      const event = mercadoPagoFixtures.orderProcessed({ amount: 15990, currency: 'CLP' });
      expect(event.data.total_paid_amount).toBe('15990');
      expect(normalize(event, { currency: 'CLP' })).toMatchObject({
        amount: 15990,
        currency: 'CLP',
      });
      expect(
        normalize({ ...event, data: { ...event.data, currency: 'ARS' } }, { currency: 'CLP' }),
      ).toMatchObject({ amount: 1599000, currency: 'ARS' });
    });

    it('leaves the amount out without a currency, or for a decimal the currency cannot hold', () => {
      const event = mercadoPagoFixtures.orderProcessed({ amount: 1999 });
      expect(normalize(event)).toMatchObject({ amount: undefined, currency: undefined });
      const clp = { ...event, data: { ...event.data, total_paid_amount: '19.99' } };
      expect(normalize(clp, { currency: 'CLP' })).toMatchObject({ amount: undefined });
    });

    it('claims no amount, status or order for a payment notification: the body has none', () => {
      const result = normalize(mercadoPagoFixtures.paymentUpdated({ paymentId: '1319485746' }));
      expect(result).toMatchObject({ paymentRef: '1319485746', merchantRef: undefined });
      expect([result.amount, result.currency, result.status]).toEqual([
        undefined,
        undefined,
        undefined,
      ]);
      expect(result.occurredAtSigned).toBeUndefined();
    });

    it('gives one key to every retry and distinct keys to two updates of one payment', () => {
      const first = mercadoPagoFixtures.paymentUpdated({ paymentId: '1319485746' });
      const second = mercadoPagoFixtures.paymentUpdated({ paymentId: '1319485746' });
      expect(normalize(first).eventId).toBe(normalize(JSON.parse(JSON.stringify(first))).eventId);
      expect(normalize(first).eventId).not.toBe(normalize(second).eventId);
    });

    it('reads a hex notification id as sent', () => {
      const event = {
        ...mercadoPagoFixtures.paymentUpdated(),
        id: 'a47fc06844bf4e418a03aeab1479c496',
      };
      expect(normalize(event).eventId).toBe('a47fc06844bf4e418a03aeab1479c496');
    });

    it.each([
      ['no id', { type: 'payment', data: { id: '1' } }],
      ['a fractional id', { id: 1.5, type: 'payment' }],
      ['no type', { id: 1 }],
      ['a data that is no object', { id: 1, type: 'payment', data: '1' }],
    ])('throws WebhookPayloadError for a notification with %s', (_label, event) => {
      const error = rejection(() => normalize(event));
      expect(error.name).toBe('WebhookPayloadError');
      expect(error.message).toMatch(/^Mercado Pago notification is not valid: /);
    });
  });
});
