import { createHmac } from 'node:crypto';
import { rejection } from '../../spec-support/rejection';
import { WebhookConfigurationError } from '../../core/webhook-errors';
import { notificationsOf } from '../notifications';
import { InboundWebhook, NormalizedNotification } from '../webhook-provider.interface';
import { mollieFixtures } from './mollie.fixtures';
import { MollieEndpointOptions, mollieEndpoint } from './mollie.provider';

const SECRET = 'whsec_mollie_provider_spec_T4kQ9zLm2Vx7';
const OTHER_SECRET = 'whsec_mollie_provider_spec_other_8Jr3Pw';

function sign(body: string | Buffer, secret = SECRET): string {
  return createHmac('sha256', secret).update(body).digest('hex');
}

function delivery(body: string | Buffer, headers: Record<string, string> = {}): InboundWebhook {
  return {
    rawBody: Buffer.isBuffer(body) ? body : Buffer.from(body, 'utf8'),
    headers,
    receivedAt: new Date(),
  };
}

function signed(body: string, secret = SECRET): InboundWebhook {
  return delivery(body, { 'x-mollie-signature': `sha256=${sign(body, secret)}` });
}

function endpoint(options: Partial<MollieEndpointOptions> = {}) {
  return mollieEndpoint({ name: 'mollie', signingSecret: SECRET, ...options });
}

async function accepted(request: InboundWebhook, options: Partial<MollieEndpointOptions> = {}) {
  const { provider } = endpoint(options);
  await provider.verify(request);
  return notificationsOf(provider.normalize(request))[0];
}

async function refused(request: InboundWebhook, options: Partial<MollieEndpointOptions> = {}) {
  const { provider } = endpoint(options);
  const error = await Promise.resolve()
    .then(() => provider.verify(request))
    .then(
      () => undefined,
      (e: unknown) => e as { name: string; reason: string; message: string },
    );
  expect(error).toBeDefined();
  return error as { name: string; reason: string; message: string };
}

const PAID = JSON.stringify(
  mollieFixtures.paymentEvent('payment.paid', {
    eventId: 'event_GvJ8WHrp5isUdRub9CJyH',
    paymentId: 'tr_5B8cwPMGnU6qLbRvo7qEZo',
    orderId: 'order-42',
    amount: 1099,
    createdAt: new Date('2025-03-20T09:13:37.000Z'),
  }),
);

describe('mollieEndpoint', () => {
  describe('verify (next-gen webhooks)', () => {
    it('accepts a body signed with node:crypto as sha256=<hex>', async () => {
      await expect(accepted(signed(PAID))).resolves.toMatchObject({
        eventId: 'event_GvJ8WHrp5isUdRub9CJyH',
      });
    });

    it('accepts the hex digest without the sha256= prefix, as Mollie’s PHP SDK does', async () => {
      const request = delivery(PAID, { 'x-mollie-signature': sign(PAID) });
      await expect(accepted(request)).resolves.toBeDefined();
    });

    it('signs the raw bytes, multi-byte UTF-8 included', async () => {
      const body = PAID.replace('"order-42"', '"Café ☕ 東京"');
      await expect(accepted(signed(body))).resolves.toMatchObject({ merchantRef: 'Café ☕ 東京' });
    });

    it('accepts either secret while two are configured', async () => {
      const options = { signingSecret: [OTHER_SECRET, SECRET] };
      await expect(accepted(signed(PAID, SECRET), options)).resolves.toBeDefined();
      await expect(accepted(signed(PAID, OTHER_SECRET), options)).resolves.toBeDefined();
    });

    it('accepts a rotation’s two signatures, as two headers joined by Node or one by one', async () => {
      const both = `sha256=${sign(PAID, 'old-secret-0')}, sha256=${sign(PAID)}`;
      await expect(accepted(delivery(PAID, { 'x-mollie-signature': both }))).resolves.toBeDefined();
      const reversed = `sha256=${sign(PAID)},sha256=${sign(PAID, 'old-secret-0')}`;
      await expect(
        accepted(delivery(PAID, { 'x-mollie-signature': reversed })),
      ).resolves.toBeDefined();
    });

    it('rejects a body changed by one byte', async () => {
      const request = signed(PAID);
      const tampered = Buffer.from(request.rawBody);
      tampered[tampered.indexOf('10.99')] = '9'.charCodeAt(0);
      const error = await refused(delivery(tampered, request.headers as Record<string, string>));
      expect(error).toMatchObject({ name: 'WebhookVerificationError', reason: 'bad_signature' });
    });

    it('rejects a signature made with another secret, without echoing secret or signature', async () => {
      const error = await refused(signed(PAID, OTHER_SECRET));
      expect(error.reason).toBe('bad_signature');
      expect(error.message).toMatch(/X-Mollie-Signature/);
      expect(error.message).not.toContain(SECRET);
      expect(error.message).not.toContain(sign(PAID, OTHER_SECRET));
    });

    it.each([
      ['base64 instead of hex', createHmac('sha256', SECRET).update(PAID).digest('base64')],
      ['a truncated signature', `sha256=${sign(PAID).slice(0, 40)}`],
      ['another algorithm', `sha1=${createHmac('sha1', SECRET).update(PAID).digest('hex')}`],
    ])('rejects %s as a malformed header', async (_label, header) => {
      const error = await refused(delivery(PAID, { 'x-mollie-signature': header }));
      expect(error).toMatchObject({ reason: 'bad_signature' });
      expect(error.message).toMatch(/^Malformed X-Mollie-Signature header/);
    });

    it('rejects an event without a signature at an endpoint without api', async () => {
      const error = await refused(delivery(PAID));
      expect(error.reason).toBe('missing_signature');
      expect(error.message).toMatch(/Missing X-Mollie-Signature header .*api: \{ apiKey \}/);
    });

    it('rejects a classic webhook at an endpoint without api, saying what it needs', async () => {
      const error = await refused(delivery('id=tr_5B8cwPMGnU6qLbRvo7qEZo'));
      expect(error.reason).toBe('missing_signature');
    });

    it('refuses a signed delivery at an endpoint with no signingSecret', async () => {
      const error = await refused(signed(PAID), {
        signingSecret: undefined,
        api: { apiKey: 'test_dHar4XY7LxsDOtmnkVtjNVWXLSlXsM' },
      });
      expect(error.reason).toBe('bad_signature');
      expect(error.message).toMatch(/no signingSecret/);
    });
  });

  describe('configuration', () => {
    function configError(options: Partial<MollieEndpointOptions>): string {
      const error = rejection(() =>
        mollieEndpoint({ name: 'mollie', ...options } as MollieEndpointOptions),
      );
      expect(error.name).toBe(WebhookConfigurationError.name);
      return error.message;
    }

    it('answers 200 with an empty body; no API check without api', () => {
      const built = endpoint();
      expect(built).toMatchObject({
        acknowledgement: { status: 200, body: '' },
        verifyWithProvider: false,
        statusClient: undefined,
      });
      expect(built.provider.kind).toBe('mollie');
    });

    it('asks the API before handlers by default once api is set', () => {
      const built = endpoint({ api: { apiKey: 'live_dHar4XY7LxsDOtmnkVtjNVWXLSlXsM' } });
      expect(built.verifyWithProvider).toBe(true);
      expect(built.statusClient?.kind).toBe('mollie');
      expect(
        endpoint({ api: { apiKey: 'test_x1' }, verifyWithProvider: false }).verifyWithProvider,
      ).toBe(false);
    });

    it('needs a signing secret or an API key', () => {
      expect(configError({})).toMatch(
        /takes no Mollie webhook: set signingSecret .* api: \{ apiKey \}/,
      );
    });

    it('refuses a secret with whitespace without quoting it', () => {
      const message = configError({ signingSecret: `${SECRET}\n` });
      expect(message).toMatch(/signingSecret contains whitespace/);
      expect(message).not.toContain(SECRET);
    });

    it('refuses an API key that is none, without quoting it', () => {
      const message = configError({ api: { apiKey: 'sk_test_not_mollie' } });
      expect(message).toMatch(/apiKey must be a Mollie API key/);
      expect(message).not.toContain('sk_test_not_mollie');
    });

    it('refuses an API wait Mollie would not allow for', () => {
      expect(configError({ api: { apiKey: 'test_x1', timeoutMs: 15_000 } })).toMatch(
        /api.timeoutMs 15000 .* at most 12000/,
      );
    });
  });

  describe('normalize', () => {
    function normalize(body: object | string): NormalizedNotification {
      const text = typeof body === 'string' ? body : JSON.stringify(body);
      return notificationsOf(endpoint().provider.normalize(delivery(text)))[0];
    }

    it.each([
      ['payment.paid', 'payment.succeeded'],
      ['payment.authorized', 'payment.authorized'],
      ['payment.failed', 'payment.failed'],
      ['payment.canceled', 'payment.canceled'],
      ['payment.expired', 'payment.canceled'],
      ['payment.pending', 'mollie:payment.pending'],
      ['payment.open', 'mollie:payment.open'],
    ] as const)('maps %s to %s, keyed by the event id', (nativeType, type) => {
      const event = mollieFixtures.paymentEvent(nativeType);
      expect(normalize(event)).toMatchObject({ type, nativeType, eventId: event.id });
    });

    it('reads the embedded payment: id, metadata.order_id, amount in minor units, status', () => {
      expect(normalize(PAID)).toMatchObject({
        eventId: 'event_GvJ8WHrp5isUdRub9CJyH',
        type: 'payment.succeeded',
        nativeType: 'payment.paid',
        paymentRef: 'tr_5B8cwPMGnU6qLbRvo7qEZo',
        merchantRef: 'order-42',
        amount: 1099,
        currency: 'EUR',
        status: 'paid',
        occurredAt: new Date('2025-03-20T09:13:37.000Z'),
        occurredAtSigned: true,
      });
    });

    it.each([
      ['JPY', 1500, '1500'],
      ['KWD', 1500, '1.500'],
    ])('converts %s amounts by the currency’s exponent', (currency, amount, value) => {
      const event = mollieFixtures.paymentEvent('payment.paid', { currency, amount });
      expect((event._embedded?.entity.amount as { value: string }).value).toBe(value);
      expect(normalize(event)).toMatchObject({ amount, currency });
    });

    it('reads metadata written as a JSON string, and a numeric order id', () => {
      const event = mollieFixtures.paymentEvent('payment.paid');
      (event._embedded as { entity: Record<string, unknown> }).entity.metadata =
        '{"order_id":12345}';
      expect(normalize(event).merchantRef).toBe('12345');
    });

    it('finds the entity under its resource name too, as Mollie’s documentation shows it', () => {
      const event = mollieFixtures.paymentEvent('payment.paid', { orderId: 'order-7' });
      const payload = { ...event, _embedded: { payment: event._embedded?.entity } };
      expect(normalize(payload)).toMatchObject({ merchantRef: 'order-7', amount: 1099 });
    });

    it('takes a simple payload (no entity): the payment id from entityId alone', () => {
      const { _embedded: _entity, ...simple } = mollieFixtures.paymentEvent('payment.paid');
      expect(normalize(simple)).toMatchObject({
        type: 'payment.succeeded',
        paymentRef: simple.entityId,
        merchantRef: undefined,
      });
      expect(normalize(simple).amount).toBeUndefined();
    });

    it('keeps other event types native, without a payment reference', () => {
      const event = mollieFixtures.paymentLinkPaid({ amount: 2495 });
      expect(normalize(event)).toMatchObject({
        type: 'mollie:payment-link.paid',
        nativeType: 'payment-link.paid',
        paymentRef: undefined,
        amount: 2495,
      });
      const invoice = { ...event, type: 'sales-invoice.paid', entityId: 'invoice_4Y0eZitmBnQ6' };
      expect(normalize(invoice).type).toBe('mollie:sales-invoice.paid');
    });

    it('gives every delivery of one event the same key, and new events new keys', () => {
      const event = mollieFixtures.paymentEvent('payment.paid');
      expect(normalize(JSON.stringify(event)).eventId).toBe(normalize(event).eventId);
      expect(normalize(mollieFixtures.paymentEvent('payment.paid')).eventId).not.toBe(event.id);
    });

    it('reads a stored classic webhook back from its payment, keyed by the payment’s state', () => {
      const payment = mollieFixtures.payment({
        paymentId: 'tr_WDqYK6vllg',
        status: 'paid',
        orderId: 'order-9',
        amount: 2500,
      });
      expect(normalize(payment)).toMatchObject({
        eventId: 'tr_WDqYK6vllg:paid',
        type: 'payment.succeeded',
        nativeType: 'payment.paid',
        paymentRef: 'tr_WDqYK6vllg',
        merchantRef: 'order-9',
        amount: 2500,
        status: 'paid',
      });
    });

    it('keys two partial refunds of one payment apart, and each refund’s steps apart', () => {
      const base = { paymentId: 'tr_WDqYK6vllg', status: 'paid' as const, amount: 5000 };
      const states = [
        mollieFixtures.payment(base),
        mollieFixtures.payment({
          ...base,
          refunds: [{ id: 're_1', status: 'pending', amount: 1000 }],
        }),
        mollieFixtures.payment({
          ...base,
          refunds: [{ id: 're_1', status: 'refunded', amount: 1000 }],
        }),
        mollieFixtures.payment({
          ...base,
          refunds: [
            { id: 're_1', status: 'refunded', amount: 1000 },
            { id: 're_2', status: 'refunded', amount: 1000 },
          ],
        }),
        mollieFixtures.payment({
          ...base,
          refunds: [
            { id: 're_1', status: 'refunded', amount: 1000 },
            { id: 're_2', status: 'failed', amount: 1000 },
          ],
        }),
        mollieFixtures.payment({ ...base, chargebacks: [{ id: 'chb_1' }] }),
        mollieFixtures.payment({ ...base, chargebacks: [{ id: 'chb_1', reversed: true }] }),
      ];
      const keys = states.map((state) => normalize(state).eventId);
      expect(new Set(keys).size).toBe(states.length);
      expect(keys.every((key) => key.startsWith('tr_WDqYK6vllg:paid'))).toBe(true);
      expect(normalize(states[2])).toMatchObject({
        type: 'refund.succeeded',
        nativeType: 'refund.refunded',
        amount: 1000,
        paymentRef: 'tr_WDqYK6vllg',
      });
      expect(normalize(states[1]).type).toBe('mollie:refund.pending');
      expect(normalize(states[5])).toMatchObject({
        type: 'dispute.opened',
        nativeType: 'chargeback.received',
      });
      expect(normalize(states[6]).type).toBe('dispute.closed');
    });

    it('keys each status of one payment apart', () => {
      const keys = (['open', 'authorized', 'paid'] as const).map(
        (status) =>
          normalize(mollieFixtures.payment({ paymentId: 'tr_WDqYK6vllg', status })).eventId,
      );
      expect(keys).toEqual([
        'tr_WDqYK6vllg:open',
        'tr_WDqYK6vllg:authorized',
        'tr_WDqYK6vllg:paid',
      ]);
    });

    it.each([
      ['not JSON', '{"id": "event_1",'],
      ['a classic form body read without its API check', 'id=tr_5B8cwPMGnU6qLbRvo7qEZo'],
      ['not UTF-8', Buffer.from([0x7b, 0xff, 0xfe, 0x7d])],
    ])('throws WebhookPayloadError for a body that is %s', (_label, body) => {
      expect(rejection(() => endpoint().provider.normalize(delivery(body)))).toMatchObject({
        name: 'WebhookPayloadError',
      });
    });

    it.each([
      ['no id', { resource: 'event', type: 'payment.paid', entityId: 'tr_1' }],
      ['no type', { resource: 'event', id: 'event_1', entityId: 'tr_1' }],
      ['no entityId', { resource: 'event', id: 'event_1', type: 'payment.paid' }],
      ['another resource', { resource: 'refund', id: 're_1', type: 'x', entityId: 'tr_1' }],
    ])('throws WebhookPayloadError for an event with %s', (_label, event) => {
      const error = rejection(() => normalize(event));
      expect(error.name).toBe('WebhookPayloadError');
      expect(error.message).toMatch(/^Mollie event is not valid: /);
    });
  });
});
