import { createHmac } from 'node:crypto';
import { WebhookConfigurationError } from '../../core/webhook-errors';
import { notificationsOf } from '../notifications';
import {
  InboundWebhook,
  NormalizedNotification,
  WebhookProvider,
} from '../webhook-provider.interface';
import { rejection } from '../../spec-support/rejection';
import { cloudPaymentsFixtures } from './cloudpayments.fixtures';
import {
  CloudPaymentsEndpointOptions,
  CloudPaymentsNotification,
  cloudPaymentsEndpoint,
  cloudPaymentsProvider,
} from './cloudpayments.provider';

const SECRET = 'a3f6b0c9e1d24f7a8b5c6d7e8f901234';
const OTHER_SECRET = '0f1e2d3c4b5a69788796a5b4c3d2e1f0';

/** The documented scheme, written out with node:crypto: base64 HMAC-SHA256 of the text. */
function hmac(text: string | Buffer, secret = SECRET): string {
  return createHmac('sha256', secret).update(text).digest('base64');
}

/** Form-encodes parameters the way CloudPayments posts them. */
function form(fields: Record<string, string | number>): string {
  return new URLSearchParams(
    Object.entries(fields).map(([name, value]): [string, string] => [name, String(value)]),
  ).toString();
}

function delivery(body: string | Buffer, headers: Record<string, string>): InboundWebhook {
  return {
    rawBody: Buffer.isBuffer(body) ? body : Buffer.from(body, 'utf8'),
    headers,
    receivedAt: new Date(),
  };
}

function signed(body: string, secret = SECRET): InboundWebhook {
  return delivery(body, { 'content-hmac': hmac(body, secret) });
}

function provider(options: Partial<CloudPaymentsEndpointOptions> = {}): WebhookProvider {
  return cloudPaymentsEndpoint({
    name: 'cloudpayments-pay',
    apiSecret: SECRET,
    notification: 'pay',
    ...options,
  }).provider;
}

function normalize(
  fields: Record<string, string | number>,
  notification: CloudPaymentsNotification = 'pay',
  options: Partial<CloudPaymentsEndpointOptions> = {},
): NormalizedNotification {
  const body = form(fields);
  return notificationsOf(provider({ notification, ...options }).normalize(signed(body)))[0];
}

const PAY = cloudPaymentsFixtures.pay({
  invoiceId: 'order-42',
  amount: 1999,
  transactionId: 1234567890,
  dateTime: new Date('2024-05-12T18:14:14Z'),
});
const PAY_BODY = form(PAY);

describe('cloudPaymentsEndpoint', () => {
  describe('verify', () => {
    it('accepts Content-HMAC over the form body as sent', () => {
      expect(() => provider().verify(signed(PAY_BODY))).not.toThrow();
    });

    it('accepts X-Content-HMAC over the URL-decoded body alone', () => {
      const decoded = decodeURIComponent(PAY_BODY.replace(/\+/g, ' '));
      expect(decoded).not.toBe(PAY_BODY);
      const request = delivery(PAY_BODY, { 'x-content-hmac': hmac(decoded) });
      expect(() => provider().verify(request)).not.toThrow();
    });

    it('accepts a JSON body, multi-byte UTF-8 included', () => {
      const body = JSON.stringify({ ...PAY, Amount: 19.99, Description: 'Оплата ☕ 東京' });
      expect(() => provider().verify(signed(body))).not.toThrow();
      expect(normalize(PAY).amount).toBe(1999);
    });

    it('accepts a good Content-HMAC beside a malformed X-Content-HMAC', () => {
      const request = delivery(PAY_BODY, {
        'content-hmac': hmac(PAY_BODY),
        'x-content-hmac': 'not base64',
      });
      expect(() => provider().verify(request)).not.toThrow();
    });

    it('accepts either secret while two are configured (rotation)', () => {
      const rotating = provider({ apiSecret: [OTHER_SECRET, SECRET] });
      expect(() => rotating.verify(signed(PAY_BODY, SECRET))).not.toThrow();
      expect(() => rotating.verify(signed(PAY_BODY, OTHER_SECRET))).not.toThrow();
    });

    it('rejects a body changed by one byte', () => {
      const request = signed(PAY_BODY);
      const tampered = PAY_BODY.replace('Amount=19.99', 'Amount=99.99');
      expect(tampered).not.toBe(PAY_BODY);
      expect(
        rejection(() =>
          provider().verify(delivery(tampered, request.headers as Record<string, string>)),
        ),
      ).toMatchObject({ name: 'WebhookVerificationError', reason: 'bad_signature' });
    });

    it('rejects a signature made with another secret, without echoing either', () => {
      const error = rejection(() => provider().verify(signed(PAY_BODY, OTHER_SECRET)));
      expect(error.reason).toBe('bad_signature');
      expect(error.message).toMatch(/API secret/);
      expect(error.message).not.toContain(SECRET);
      expect(error.message).not.toContain(hmac(PAY_BODY));
    });

    it('refuses a re-encoded body whose decoded text was signed but whose fields differ', () => {
      // The decoded text "a=1&InvoiceId=evil" could come from a body where InvoiceId is a field
      // of its own, or from one where "&InvoiceId=evil" is part of a's value: only the raw bytes
      // tell them apart, so a decoded-text signature of an ambiguous body counts for nothing.
      const genuine = 'TransactionId=1&Description=a%26InvoiceId%3Devil';
      const decoded = 'TransactionId=1&Description=a&InvoiceId=evil';
      const forged = delivery(decoded, { 'x-content-hmac': hmac(decoded) });
      expect(() => provider().verify(forged)).not.toThrow();
      const reshaped = delivery(genuine, { 'x-content-hmac': hmac(decoded) });
      expect(rejection(() => provider().verify(reshaped))).toMatchObject({
        reason: 'bad_signature',
      });
    });

    it.each([
      ['absent', {}],
      ['empty', { 'content-hmac': '' }],
      ['blank, both', { 'content-hmac': ' ', 'x-content-hmac': ' ' }],
    ])('rejects a delivery whose headers are %s as missing_signature', (_label, headers) => {
      expect(rejection(() => provider().verify(delivery(PAY_BODY, headers)))).toMatchObject({
        reason: 'missing_signature',
        message: 'Missing Content-HMAC header',
      });
    });

    it.each([
      ['hex', createHmac('sha256', SECRET).update(PAY_BODY).digest('hex')],
      ['truncated', hmac(PAY_BODY).slice(0, 40)],
    ])('rejects a %s signature as malformed', (_label, header) => {
      expect(
        rejection(() => provider().verify(delivery(PAY_BODY, { 'content-hmac': header }))),
      ).toMatchObject({ reason: 'bad_signature', message: /^Malformed Content-HMAC/ });
    });
  });

  describe('configuration', () => {
    function configError(options: Partial<CloudPaymentsEndpointOptions>): string {
      const error = rejection(() =>
        cloudPaymentsEndpoint({
          name: 'cloudpayments',
          ...options,
        } as CloudPaymentsEndpointOptions),
      );
      expect(error.name).toBe(WebhookConfigurationError.name);
      return error.message;
    }

    it('answers {"code":0} as JSON', () => {
      const endpoint = cloudPaymentsEndpoint({
        name: 'cloudpayments',
        apiSecret: SECRET,
        notification: 'check',
      });
      expect(endpoint.acknowledgement).toEqual({
        status: 200,
        body: '{"code":0}',
        contentType: 'application/json; charset=utf-8',
      });
      expect(endpoint.provider.kind).toBe('cloudpayments');
    });

    it('requires an API secret without whitespace, never quoting it', () => {
      expect(configError({ notification: 'pay' })).toMatch(/no usable apiSecret/);
      const message = configError({ notification: 'pay', apiSecret: `${SECRET}\n` });
      expect(message).toMatch(/apiSecret contains whitespace/);
      expect(message).not.toContain(SECRET);
    });

    it.each([undefined, 'payment', 'Pay'])('refuses notification %p, listing the kinds', (kind) => {
      expect(
        configError({ apiSecret: SECRET, notification: kind as CloudPaymentsNotification }),
      ).toMatch(/no usable notification.*check, pay, fail, confirm, refund, recurrent, cancel/);
    });

    it('refuses a defaultCurrency that is no currency code', () => {
      expect(
        configError({ apiSecret: SECRET, notification: 'refund', defaultCurrency: 'RU' }),
      ).toMatch(/defaultCurrency must be an ISO 4217 code/);
    });
  });

  describe('normalize', () => {
    it('reads a Pay: transaction, invoice, amount in kopecks, status and DateTime as UTC', () => {
      expect(normalize(PAY)).toMatchObject({
        eventId: 'pay:1234567890:Payment:Completed',
        type: 'payment.succeeded',
        nativeType: 'pay',
        paymentRef: '1234567890',
        merchantRef: 'order-42',
        amount: 1999,
        currency: 'RUB',
        status: 'Completed',
        occurredAt: new Date('2024-05-12T18:14:14Z'),
        occurredAtSigned: true,
      });
    });

    it.each<[CloudPaymentsNotification, Record<string, string | number>, string]>([
      ['check', cloudPaymentsFixtures.check(), 'cloudpayments:check'],
      ['pay', cloudPaymentsFixtures.pay({ status: 'Completed' }), 'payment.succeeded'],
      ['pay', cloudPaymentsFixtures.pay({ status: 'Authorized' }), 'payment.authorized'],
      ['pay', { ...cloudPaymentsFixtures.pay(), OperationType: 'CardPayout' }, 'cloudpayments:pay'],
      ['fail', cloudPaymentsFixtures.fail(), 'payment.failed'],
      ['confirm', cloudPaymentsFixtures.confirm(), 'payment.succeeded'],
      ['refund', cloudPaymentsFixtures.refund(), 'refund.succeeded'],
      ['cancel', cloudPaymentsFixtures.cancel(), 'payment.canceled'],
      ['recurrent', cloudPaymentsFixtures.recurrent(), 'cloudpayments:recurrent'],
    ])('maps %s to its type, keeping the kind as the native type', (kind, fields, type) => {
      expect(normalize(fields, kind)).toMatchObject({ type, nativeType: kind });
    });

    it('reads a refund: the refunded payment, its own transaction in the key, the site currency', () => {
      const refund = cloudPaymentsFixtures.refund({
        transactionId: 2222222222,
        paymentTransactionId: 1234567890,
        amount: 500,
        invoiceId: 'order-42',
      });
      expect(normalize(refund, 'refund', { defaultCurrency: 'kzt' })).toMatchObject({
        eventId: 'refund:2222222222:Refund:',
        paymentRef: '1234567890',
        merchantRef: 'order-42',
        amount: 500,
        currency: 'KZT',
      });
    });

    it('gives two partial refunds of one payment distinct keys', () => {
      const first = cloudPaymentsFixtures.refund({ paymentTransactionId: 1234567890, amount: 500 });
      const second = cloudPaymentsFixtures.refund({
        paymentTransactionId: 1234567890,
        amount: 500,
      });
      expect(normalize(first, 'refund').eventId).not.toBe(normalize(second, 'refund').eventId);
    });

    it('keeps one key for a retry, form or JSON, and tells the kinds of one transaction apart', () => {
      const json = JSON.stringify({ ...PAY, TransactionId: 1234567890 });
      const fromJson = notificationsOf(provider().normalize(signed(json)))[0];
      expect(fromJson.eventId).toBe(normalize(PAY).eventId);
      const confirm = cloudPaymentsFixtures.confirm({ transactionId: 1234567890 });
      expect(normalize(confirm, 'confirm').eventId).not.toBe(normalize(PAY).eventId);
      const authorized = { ...PAY, Status: 'Authorized' };
      expect(normalize(authorized).eventId).not.toBe(normalize(PAY).eventId);
    });

    it('keys a subscription change by its status and payment counts', () => {
      const active = cloudPaymentsFixtures.recurrent({ subscriptionId: 'sc_1', status: 'Active' });
      const again = cloudPaymentsFixtures.recurrent({
        subscriptionId: 'sc_1',
        status: 'Active',
        successfulTransactions: 2,
        failedTransactions: 1,
      });
      expect(normalize(active, 'recurrent').eventId).toBe('recurrent:sc_1:Active:1:0');
      expect(normalize(again, 'recurrent').eventId).toBe('recurrent:sc_1:Active:2:1');
    });

    it.each([
      ['KWD, three decimals', 'KWD', '1.250', 1250],
      ['JPY, none', 'JPY', '1500', 1500],
      ['USD with a JSON-style short decimal', 'USD', '10.5', 1050],
    ])('converts the amount with the currency exponent: %s', (_label, currency, amount, minor) => {
      expect(normalize({ ...PAY, Currency: currency, Amount: amount })).toMatchObject({
        amount: minor,
        currency,
      });
    });

    it('leaves out an amount it cannot read exactly', () => {
      expect(normalize({ ...PAY, Amount: '19.999' }).amount).toBeUndefined();
      expect(normalize({ ...PAY, Amount: '1e3' }).amount).toBeUndefined();
    });

    it.each<[CloudPaymentsNotification, Record<string, string | number>, RegExp]>([
      [
        'fail',
        cloudPaymentsFixtures.pay(),
        /receives fail notifications, but its Status is Completed/,
      ],
      ['cancel', cloudPaymentsFixtures.pay({ status: 'Authorized' }), /its Status is Authorized/],
      ['confirm', cloudPaymentsFixtures.pay({ status: 'Authorized' }), /its Status is Authorized/],
      ['refund', cloudPaymentsFixtures.pay(), /no PaymentTransactionId/],
      ['pay', cloudPaymentsFixtures.refund(), /it carries a refund/],
      ['recurrent', cloudPaymentsFixtures.pay(), /carries a TransactionId/],
    ])('refuses at the %s endpoint a body of another kind', (kind, fields, message) => {
      expect(rejection(() => normalize(fields, kind))).toMatchObject({
        name: 'WebhookPayloadError',
        message,
      });
    });

    it.each([
      ['no TransactionId', form({ InvoiceId: 'order-1', Amount: '1.00' })],
      ['not JSON', '{"TransactionId": 1,'],
      ['a repeated field', 'TransactionId=1&TransactionId=2'],
    ])('throws WebhookPayloadError for a body with %s', (_label, body) => {
      expect(rejection(() => provider().normalize(signed(body)))).toMatchObject({
        name: 'WebhookPayloadError',
      });
    });
  });
});

describe('cloudPaymentsProvider.descriptor', () => {
  it('signs a JSON file for the CLI as form or JSON', () => {
    const { sign } = cloudPaymentsProvider.descriptor.signing;
    const json = { TransactionId: 7, InvoiceId: 'order-7', Amount: '1.00' };
    const input = (format?: string) => ({
      text: JSON.stringify(json),
      json,
      secret: 's3cret',
      options: { format },
      readFile: () => '',
    });
    const form = sign(input());
    expect(form.body).toBe('TransactionId=7&InvoiceId=order-7&Amount=1.00');
    expect(form.headers['content-hmac']).toBe(
      createHmac('sha256', 's3cret').update(form.body).digest('base64'),
    );
    expect(sign(input('json')).headers['content-type']).toBe('application/json');
    expect(() => sign(input('xml'))).toThrow(/--format takes form or json/);
  });
});
