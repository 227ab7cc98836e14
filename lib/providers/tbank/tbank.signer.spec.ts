import { createHash } from 'node:crypto';
import { notificationsOf } from '../notifications';
import { tbankEndpoint } from './tbank.provider';
import { InboundWebhook } from '../webhook-provider.interface';
import { tbankFixtures } from './tbank.fixtures';
import { SignedDelivery } from '../signed-delivery';
import { signTBankDelivery } from './tbank.signer';
import { storedEventIds } from '../../spec-support/stored-event-ids';

// NOTE: a notification from a T-Bank demo terminal, documented in providers.md §6.
const DEMO_PASSWORD = 'rpnstdt1ekalr00f';
const DEMO_BODY =
  '{"TerminalKey":"1772186527637DEMO","OrderId":"lde1q7xbsoisn1vjj2k6s","Success":true,' +
  '"Status":"AUTHORIZED","PaymentId":8111987112,"ErrorCode":"0","Amount":1000,' +
  '"CardId":659561464,"Pan":"430000******0777","ExpDate":"1230",' +
  '"Token":"17bf87f32797d961db48f4500cc9110be5cc2f480e4e555e2440eec09108a760"}';
const PASSWORD = 'tb_terminal_password';

function inbound(delivery: SignedDelivery): InboundWebhook {
  return {
    rawBody: Buffer.from(delivery.body, 'utf8'),
    headers: delivery.headers,
    receivedAt: new Date(),
  };
}

function provider(password = PASSWORD) {
  return tbankEndpoint({ name: 'tbank', password }).provider;
}

describe('signTBankDelivery', () => {
  it('reproduces the documented demo notification byte for byte', () => {
    const { Token: _token, ...payload } = JSON.parse(DEMO_BODY) as Record<string, unknown>;
    expect(signTBankDelivery({ payload, password: DEMO_PASSWORD })).toEqual({
      provider: 'tbank',
      method: 'POST',
      body: DEMO_BODY,
      headers: { 'content-type': 'application/json' },
      eventId: '8111987112:AUTHORIZED',
    });
  });

  it('computes the documented Init Token, leaving nested objects out', () => {
    const delivery = signTBankDelivery({
      payload: {
        TerminalKey: 'MerchantTerminalKey',
        Amount: 19200,
        OrderId: '21090',
        Description: 'Подарочная карта на 1000 рублей',
        DATA: { Phone: '+71234567890' },
        Receipt: { Items: [] },
      },
      password: 'usaf8fw8fsw21g',
    });
    expect((JSON.parse(delivery.body) as { Token: string }).Token).toBe(
      '0024a00af7c350a3a67ca168ce06502aa72772456662e38696d48b56ee9c97d9',
    );
  });

  it('replaces a Token already in the payload and puts it last', () => {
    const payload = { Token: 'stale', ...tbankFixtures.confirmed({ orderId: 'order-1' }) };
    const body = JSON.parse(signTBankDelivery({ payload, password: PASSWORD }).body) as object;
    expect(Object.keys(body).at(-1)).toBe('Token');
    expect((body as { Token: string }).Token).toMatch(/^[0-9a-f]{64}$/);
  });

  it('refuses a payload with a Password field', () => {
    expect(() =>
      signTBankDelivery({ payload: { Password: 'x', Status: 'CONFIRMED' }, password: PASSWORD }),
    ).toThrow(/remove Password from the payload/);
  });

  it.each([
    ['authorized', 'payment.authorized'],
    ['confirmed', 'payment.succeeded'],
    ['rejected', 'payment.failed'],
    ['reversed', 'payment.canceled'],
    ['partialReversed', 'payment.authorized'],
    ['refunded', 'refund.succeeded'],
    ['partialRefunded', 'refund.succeeded'],
  ] as const)('signs tbankFixtures.%s so the provider accepts it as %s', (fixture, type) => {
    const payload = tbankFixtures[fixture]({ orderId: 'order-7', amount: 19200 });
    const delivery = signTBankDelivery({ payload, password: PASSWORD });
    expect(() => provider().verify(inbound(delivery))).not.toThrow();
    // NOTE: after a partial refund Amount is what is left of the payment, not the refund's.
    const amount = fixture === 'partialRefunded' ? {} : { amount: 19200, currency: 'RUB' };
    expect(notificationsOf(provider().normalize(inbound(delivery)))[0]).toMatchObject({
      type,
      merchantRef: 'order-7',
      ...amount,
    });
  });

  it('is refused under another password', () => {
    const delivery = signTBankDelivery({
      payload: tbankFixtures.confirmed({ orderId: 'order-1' }),
      password: PASSWORD,
    });
    expect(() => provider('another').verify(inbound(delivery))).toThrow(/Token does not match/);
  });

  it('matches an independent node:crypto Token over the fixture', () => {
    const payload = tbankFixtures.rejected({ orderId: 'order-2', amount: 500, paymentId: 42 });
    const text = [
      ['Amount', '500'],
      ['CardId', String(payload.CardId)],
      ['Details', ''],
      ['ErrorCode', '1051'],
      ['ExpDate', payload.ExpDate],
      ['Message', payload.Message],
      ['OrderId', 'order-2'],
      ['Pan', payload.Pan],
      ['Password', PASSWORD],
      ['PaymentId', '42'],
      ['Status', 'REJECTED'],
      ['Success', 'false'],
      ['TerminalKey', payload.TerminalKey],
    ]
      .map(([, value]) => value)
      .join('');
    const body = JSON.parse(signTBankDelivery({ payload, password: PASSWORD }).body) as {
      Token: string;
    };
    expect(body.Token).toBe(createHash('sha256').update(text, 'utf8').digest('hex'));
  });

  it('names the key a T-Bank endpoint stores the notification under', async () => {
    const payload = tbankFixtures.confirmed({ orderId: 'order-42', paymentId: 7654321012 });
    const delivery = signTBankDelivery({ password: PASSWORD, payload });
    const endpoint = tbankEndpoint({ name: 'tbank', password: PASSWORD });
    expect(await storedEventIds(endpoint, delivery)).toEqual(['7654321012:CONFIRMED']);
    expect(delivery.eventId).toBe('7654321012:CONFIRMED');
  });
});

describe('tbankFixtures', () => {
  it('builds a notification in T-Bank format', () => {
    expect(tbankFixtures.confirmed({ orderId: 'order-9', amount: 250000 })).toEqual({
      TerminalKey: '1772186527637DEMO',
      OrderId: 'order-9',
      Success: true,
      Status: 'CONFIRMED',
      PaymentId: expect.any(Number),
      ErrorCode: '0',
      Amount: 250000,
      CardId: 659561464,
      Pan: '430000******0777',
      ExpDate: '1230',
    });
  });

  it('gives one order one 10-digit payment id, and different orders different ones', () => {
    const a = tbankFixtures.authorized({ orderId: 'order-a' }).PaymentId;
    expect(tbankFixtures.confirmed({ orderId: 'order-a' }).PaymentId).toBe(a);
    expect(tbankFixtures.confirmed({ orderId: 'order-b' }).PaymentId).not.toBe(a);
    expect(String(a)).toMatch(/^\d{10}$/);
  });

  it('marks a rejection as Success: false with an error code', () => {
    expect(tbankFixtures.rejected({ orderId: 'o' })).toMatchObject({
      Success: false,
      ErrorCode: '1051',
      Status: 'REJECTED',
    });
  });
});
