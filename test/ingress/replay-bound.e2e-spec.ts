import {
  adyenEndpoint,
  sberEndpoint,
  squareEndpoint,
  WebhookTelemetry,
  yoomoneyEndpoint,
} from 'nestjs-payment-webhooks';
import { DeliveryRecord } from 'nestjs-payment-webhooks/observability';
import {
  adyenNotificationItem,
  sberFixtures,
  signAdyenDelivery,
  signSberDelivery,
  signSquareDelivery,
  signYooMoneyDelivery,
  squareFixtures,
  WebhookTestClient,
  yoomoneyFixtures,
} from 'nestjs-payment-webhooks/testing';
import { WebhookEventEntity } from '../support/internals';
import { startTestApp, TestApp } from '../support/test-app';

const SQUARE_KEY = 'replay-bound-square-signature-key';
const SQUARE_URL = 'https://shop.example.com/webhooks/square';
const YOOMONEY_SECRET = 'replay-bound-yoomoney-secret';
const SBER_TOKEN = 'replay-bound-sber-token';
const ADYEN_KEY = '9F2C61B7A0D34E58C1B27A96E4D03F5A8B61C2D79E0F4A3B5C6D7E8F90A1B2C3';
const DAY_MS = 86_400_000;
/** processedDays 31 is longer than Adyen's dedup floor of 30: dedup keys live 31 days. */
const HORIZON_DAYS = 31;

function daysAgo(days: number): Date {
  return new Date(Date.now() - days * DAY_MS);
}

/** A time as the Sber gateway writes callbackCreationDate, e.g. `Mon Jan 31 21:46:52 UTC 2022`. */
function gatewayDate(date: Date): string {
  const [weekday, day, month, year, time] = date.toUTCString().split(/,? /);
  return `${weekday} ${month} ${day} ${time} UTC ${year}`;
}

describe('replays bounded by the signed event time', () => {
  let app: TestApp;
  let client: WebhookTestClient;
  const journal: DeliveryRecord[] = [];

  beforeAll(async () => {
    app = await startTestApp({
      platform: 'express',
      database: 'sqlite',
      webhooks: {
        endpoints: [
          squareEndpoint({ name: 'square', signatureKey: SQUARE_KEY, notificationUrl: SQUARE_URL }),
          yoomoneyEndpoint({ name: 'yoomoney', notificationSecret: YOOMONEY_SECRET }),
          sberEndpoint({ name: 'sber', callbackToken: SBER_TOKEN }),
          adyenEndpoint({ name: 'adyen', hmacKey: ADYEN_KEY }),
        ],
        retention: { processedDays: HORIZON_DAYS, intervalMs: 0 },
        dispatch: { pollIntervalMs: 50 },
      },
    });
    app.app.get(WebhookTelemetry).subscribe({ delivery: (record) => journal.push(record) });
    client = new WebhookTestClient(app.url);
  });

  afterAll(async () => {
    await app.close();
  });

  function stored(eventId: string): Promise<WebhookEventEntity | null> {
    return app.dataSource.getRepository(WebhookEventEntity).findOneBy({ eventId });
  }

  function square(createdAt: Date) {
    const event = squareFixtures.paymentUpdated({ status: 'COMPLETED', createdAt });
    return {
      eventId: event.event_id,
      delivery: signSquareDelivery({
        payload: event,
        signatureKey: SQUARE_KEY,
        notificationUrl: SQUARE_URL,
      }),
    };
  }

  it('refuses a Square event older than dedup keys are kept, with 400 and a journaled reason', async () => {
    const old = square(daysAgo(HORIZON_DAYS + 1));
    const response = await client.send('square', old.delivery);
    expect(response.status).toBe(400);
    expect(await stored(old.eventId)).toBeNull();
    expect(journal.at(-1)).toMatchObject({
      endpoint: 'square',
      decision: 'rejected_timestamp',
      status: 400,
      reason: expect.stringMatching(/32\.0 days ago.*kept 31 days.*retention\.dedupDays/),
    });
  });

  it('stores a Square event just inside the dedup horizon: a genuine late retry is kept', async () => {
    const late = square(daysAgo(HORIZON_DAYS - 1));
    expect((await client.send('square', late.delivery)).status).toBe(200);
    expect(await stored(late.eventId)).not.toBeNull();
    expect(journal.at(-1)).toMatchObject({ endpoint: 'square', decision: 'accepted' });
  });

  it('refuses a YooMoney notification whose signed datetime is older than the horizon', async () => {
    const payload = yoomoneyFixtures.p2pIncoming({
      label: 'order-replayed',
      operationId: '904035776918098009',
      datetime: daysAgo(HORIZON_DAYS + 2).toISOString(),
    });
    const delivery = signYooMoneyDelivery({ payload, notificationSecret: YOOMONEY_SECRET });
    expect((await client.send('yoomoney', delivery)).status).toBe(400);
    expect(await stored('904035776918098009')).toBeNull();
    expect(journal.at(-1)).toMatchObject({ endpoint: 'yoomoney', decision: 'rejected_timestamp' });
  });

  it('refuses a Sber callback whose signed callbackCreationDate is older than the horizon', async () => {
    const callback = sberFixtures.deposited({ orderNumber: 'order-replayed', amount: 19200 });
    const payload = {
      ...callback,
      callbackCreationDate: gatewayDate(daysAgo(HORIZON_DAYS + 5)),
    };
    const delivery = signSberDelivery({ payload, callbackToken: SBER_TOKEN });
    expect((await client.send('sber', delivery)).status).toBe(400);
    expect(await stored(`${callback['mdOrder']}:deposited:1`)).toBeNull();
    const fresh = { ...payload, callbackCreationDate: gatewayDate(daysAgo(1)) };
    expect(
      (await client.send('sber', signSberDelivery({ payload: fresh, callbackToken: SBER_TOKEN })))
        .status,
    ).toBe(200);
  });

  it('does not refuse an old Adyen eventDate: the HMAC does not cover it', async () => {
    const item = adyenNotificationItem('AUTHORISATION', {
      pspReference: 'RB7Q2K9XWP4M6T1Z',
      eventDate: daysAgo(HORIZON_DAYS + 10).toISOString(),
    });
    const response = await client.send(
      'adyen',
      signAdyenDelivery({ hmacKey: ADYEN_KEY, items: [item] }),
    );
    expect(response.status).toBe(200);
    expect(await stored('RB7Q2K9XWP4M6T1Z:AUTHORISATION:true')).not.toBeNull();
  });
});
