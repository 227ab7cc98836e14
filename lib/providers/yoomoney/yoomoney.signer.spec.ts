import { createHash } from 'node:crypto';
import { notificationsOf } from '../notifications';
import { InboundWebhook } from '../webhook-provider.interface';
import { yoomoneyEndpoint } from './yoomoney.provider';
import { yoomoneyFixtures } from './yoomoney.fixtures';
import { SignedDelivery } from '../signed-delivery';
import { signYooMoneyDelivery, yoomoneyNotificationHash } from './yoomoney.signer';
import { storedEventIds } from '../../spec-support/stored-event-ids';

// NOTE: the vector from the YooMoney docs (providers.md §4b).
const DOCS_SECRET = '01234567890ABCDEF01234567890';
const DOCS_PAYLOAD = {
  notification_type: 'p2p-incoming',
  operation_id: '1234567',
  amount: '300.00',
  currency: '643',
  datetime: '2011-07-01T09:00:00.000+04:00',
  sender: '41001XXXXXXXX',
  codepro: 'false',
  label: 'YM.label.12345',
};
const DOCS_HASH = 'a2ee4a9195f4a90e893cff4f62eeba0b662321f9';
const SECRET = 'ym_notification_secret';

function inbound(delivery: SignedDelivery): InboundWebhook {
  return {
    rawBody: Buffer.from(delivery.body, 'utf8'),
    headers: delivery.headers,
    receivedAt: new Date(),
  };
}

const provider = yoomoneyEndpoint({ name: 'yoomoney', notificationSecret: SECRET }).provider;

describe('signYooMoneyDelivery', () => {
  it('reproduces the documented hash in a form-encoded POST', () => {
    expect(
      signYooMoneyDelivery({ payload: DOCS_PAYLOAD, notificationSecret: DOCS_SECRET }),
    ).toEqual({
      provider: 'yoomoney',
      method: 'POST',
      body:
        'notification_type=p2p-incoming&operation_id=1234567&amount=300.00&currency=643' +
        '&datetime=2011-07-01T09%3A00%3A00.000%2B04%3A00&sender=41001XXXXXXXX&codepro=false' +
        `&label=YM.label.12345&sha1_hash=${DOCS_HASH}`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      eventId: '1234567',
    });
  });

  it('matches an independent node:crypto SHA-1, a missing label counting as empty', () => {
    const { label: _label, ...unlabelled } = DOCS_PAYLOAD;
    const text =
      'p2p-incoming&1234567&300.00&643&2011-07-01T09:00:00.000+04:00&41001XXXXXXXX&false' +
      `&${SECRET}&`;
    expect(yoomoneyNotificationHash(unlabelled, SECRET)).toBe(
      createHash('sha1').update(text, 'utf8').digest('hex'),
    );
  });

  it('replaces a sha1_hash already in the payload', () => {
    const delivery = signYooMoneyDelivery({
      payload: { ...DOCS_PAYLOAD, sha1_hash: 'stale' },
      notificationSecret: DOCS_SECRET,
    });
    expect(new URLSearchParams(delivery.body).getAll('sha1_hash')).toEqual([DOCS_HASH]);
  });

  it.each([
    ['p2pIncoming', 'payment.succeeded', ''],
    ['cardIncoming', 'payment.succeeded', ''],
    ['unaccepted', 'yoomoney:unaccepted', ':unaccepted'],
    ['codepro', 'yoomoney:unaccepted', ':unaccepted'],
  ] as const)(
    'signs yoomoneyFixtures.%s so the provider accepts it as %s',
    (name, type, suffix) => {
      const payload = yoomoneyFixtures[name]({ label: 'заказ 7', amount: '995.00' });
      const delivery = signYooMoneyDelivery({ payload, notificationSecret: SECRET });
      expect(() => provider.verify(inbound(delivery))).not.toThrow();
      expect(notificationsOf(provider.normalize(inbound(delivery)))[0]).toMatchObject({
        type,
        eventId: `${payload.operation_id}${suffix}`,
        merchantRef: 'заказ 7',
        amount: 99500,
        currency: 'RUB',
      });
    },
  );

  it('signs the settings-page test so the provider accepts it as a test', () => {
    const delivery = signYooMoneyDelivery({
      payload: yoomoneyFixtures.test(),
      notificationSecret: SECRET,
    });
    expect(notificationsOf(provider.normalize(inbound(delivery)))[0]).toMatchObject({
      type: 'yoomoney:test_notification',
      eventId: 'test-notification',
    });
  });

  it('is refused under another secret', () => {
    const delivery = signYooMoneyDelivery({
      payload: yoomoneyFixtures.p2pIncoming({ label: 'order-1' }),
      notificationSecret: 'another',
    });
    expect(() => provider.verify(inbound(delivery))).toThrow(/sha1_hash does not match/);
  });

  it('names the key a YooMoney endpoint stores the notification under', async () => {
    const payload = yoomoneyFixtures.p2pIncoming({ label: 'order-42', operationId: '904035776' });
    const delivery = signYooMoneyDelivery({ notificationSecret: SECRET, payload });
    const endpoint = yoomoneyEndpoint({ name: 'yoomoney', notificationSecret: SECRET });
    expect(await storedEventIds(endpoint, delivery)).toEqual(['904035776']);
    expect(delivery.eventId).toBe('904035776');
  });
});

describe('yoomoneyFixtures', () => {
  it('builds a wallet transfer in YooMoney format', () => {
    expect(
      yoomoneyFixtures.p2pIncoming({
        label: 'order-9',
        amount: '995.00',
        datetime: '2024-05-17T10:15:30Z',
      }),
    ).toEqual({
      notification_type: 'p2p-incoming',
      operation_id: expect.stringMatching(/^\d{18}$/),
      amount: '995.00',
      withdraw_amount: '1000.00',
      currency: '643',
      datetime: '2024-05-17T10:15:30Z',
      sender: '41001000040',
      codepro: 'false',
      label: 'order-9',
      unaccepted: 'false',
    });
  });

  it('sends a card payment with an empty sender', () => {
    expect(yoomoneyFixtures.cardIncoming({ label: 'o' })).toMatchObject({
      notification_type: 'card-incoming',
      sender: '',
    });
  });

  it('keeps one operation id per label and kind', () => {
    expect(yoomoneyFixtures.p2pIncoming({ label: 'a' }).operation_id).toBe(
      yoomoneyFixtures.unaccepted({ label: 'a' }).operation_id,
    );
    expect(yoomoneyFixtures.p2pIncoming({ label: 'b' }).operation_id).not.toBe(
      yoomoneyFixtures.p2pIncoming({ label: 'a' }).operation_id,
    );
  });

  it('stamps the current time by default, as YooMoney writes it', () => {
    const datetime = yoomoneyFixtures.p2pIncoming({ label: 'o' }).datetime;
    expect(datetime).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(Math.abs(Date.parse(datetime) - Date.now())).toBeLessThan(5000);
  });
});
