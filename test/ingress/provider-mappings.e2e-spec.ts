import { Injectable } from '@nestjs/common';
import {
  OnPaymentEvent,
  PaymentEvent,
  sberEndpoint,
  stripeEndpoint,
  tbankEndpoint,
} from 'nestjs-payment-webhooks';
import {
  sberFixtures,
  signSberDelivery,
  signTBankDelivery,
  tbankFixtures,
  WebhookTestClient,
} from 'nestjs-payment-webhooks/testing';
import { eventually, startTestApp, TestApp } from '../support/test-app';
import { post } from '../support/http';
import { stripeSignature } from '../support/stripe-event';

const STRIPE_SECRET = 'whsec_provider_mappings_e2e';
const SBER_TOKEN = 'provider-mappings-sber-callback-token';
const TBANK_PASSWORD = 'provider-mappings-terminal-password';

/** What a handler saw of one event. */
interface Seen {
  readonly endpoint: string;
  readonly eventId: string;
  readonly type: string;
  readonly nativeType: string;
  readonly amount: number | null;
  readonly paymentRef: string | null;
}

@Injectable()
class RecordingHandlers {
  static seen: Seen[] = [];

  @OnPaymentEvent(['payment.succeeded', 'payment.authorized', 'payment.canceled'])
  async payment(event: PaymentEvent): Promise<void> {
    RecordingHandlers.record(event);
  }

  @OnPaymentEvent(['refund.succeeded', 'refund.failed'])
  async refund(event: PaymentEvent): Promise<void> {
    RecordingHandlers.record(event);
  }

  private static record(event: PaymentEvent): void {
    RecordingHandlers.seen.push({
      endpoint: event.endpoint,
      eventId: event.eventId,
      type: event.type,
      nativeType: event.nativeType,
      amount: event.amount,
      paymentRef: event.paymentRef,
    });
  }
}

describe('provider mappings over HTTP', () => {
  let app: TestApp;
  let client: WebhookTestClient;

  beforeAll(async () => {
    app = await startTestApp({
      platform: 'express',
      database: 'sqlite',
      handlers: [RecordingHandlers],
      webhooks: {
        endpoints: [
          stripeEndpoint({ name: 'stripe', secret: STRIPE_SECRET }),
          sberEndpoint({ name: 'sber', callbackToken: SBER_TOKEN }),
          tbankEndpoint({ name: 'tbank', password: TBANK_PASSWORD }),
        ],
        dispatch: { pollIntervalMs: 50 },
      },
    });
    client = new WebhookTestClient(app.url);
  });

  afterAll(async () => {
    await app.close();
  });

  beforeEach(() => {
    RecordingHandlers.seen = [];
  });

  /** Waits until nothing is left to run, then returns what the handlers saw. */
  async function settledSeen(): Promise<Seen[]> {
    await eventually(async () => {
      const [{ open }] = (await app.dataSource.query(
        "SELECT COUNT(*) AS open FROM webhook_events WHERE status IN ('pending', 'processing', 'retrying')",
      )) as { open: number | string }[];
      return Number(open) === 0;
    });
    return RecordingHandlers.seen;
  }

  describe('Stripe refunds', () => {
    function sendStripe(id: string, type: string, data: Record<string, unknown>) {
      const body = JSON.stringify({
        id,
        object: 'event',
        api_version: '2025-03-31.basil',
        created: Math.floor(Date.now() / 1000),
        livemode: false,
        pending_webhooks: 1,
        type,
        data,
      });
      return post(`${app.url}/webhooks/stripe`, body, stripeSignature(body, STRIPE_SECRET));
    }

    function refund(id: string, status: string, amount: number) {
      return {
        id,
        object: 'refund',
        amount,
        charge: 'ch_3RfA',
        created: Math.floor(Date.now() / 1000),
        currency: 'usd',
        metadata: { orderId: 'order-refund-1' },
        payment_intent: 'pi_3RfA',
        reason: 'requested_by_customer',
        status,
      };
    }

    it('runs refund handlers once per refund, with the refund’s amount, however Stripe announces it', async () => {
      const charge = {
        id: 'ch_3RfA',
        object: 'charge',
        amount: 1000,
        amount_captured: 1000,
        amount_refunded: 300,
        currency: 'usd',
        payment_intent: 'pi_3RfA',
        refunded: false,
        status: 'succeeded',
        metadata: { orderId: 'order-refund-1' },
      };
      const deliveries: [string, string, Record<string, unknown>][] = [
        [
          'evt_rf_1',
          'charge.refunded',
          { object: charge, previous_attributes: { amount_refunded: 0 } },
        ],
        ['evt_rf_2', 'refund.created', { object: refund('re_3RfA', 'pending', 300) }],
        [
          'evt_rf_3',
          'refund.updated',
          {
            object: refund('re_3RfA', 'succeeded', 300),
            previous_attributes: { status: 'pending' },
          },
        ],
        [
          'evt_rf_4',
          'charge.refund.updated',
          {
            object: refund('re_3RfA', 'succeeded', 300),
            previous_attributes: { status: 'pending' },
          },
        ],
        [
          'evt_rf_5',
          'refund.updated',
          {
            object: refund('re_3RfA', 'succeeded', 300),
            previous_attributes: { metadata: { orderId: null } },
          },
        ],
      ];
      for (const [id, type, data] of deliveries) {
        expect((await sendStripe(id, type, data)).status).toBe(200);
      }
      expect(await settledSeen()).toEqual([
        {
          endpoint: 'stripe',
          eventId: 're_3RfA:succeeded',
          type: 'refund.succeeded',
          nativeType: 'refund.updated',
          amount: 300,
          paymentRef: 'pi_3RfA',
        },
      ]);
    });

    it('runs refund.failed handlers when a refund that succeeded fails later', async () => {
      expect(
        (
          await sendStripe('evt_rf_6', 'refund.created', {
            object: refund('re_3RfB', 'succeeded', 200),
          })
        ).status,
      ).toBe(200);
      expect(
        (
          await sendStripe('evt_rf_7', 'refund.failed', {
            object: {
              ...refund('re_3RfB', 'failed', 200),
              failure_reason: 'expired_or_canceled_card',
            },
            previous_attributes: { status: 'succeeded' },
          })
        ).status,
      ).toBe(200);
      const seen = (await settledSeen()).map(({ eventId, type, amount }) => ({
        eventId,
        type,
        amount,
      }));
      expect(seen.sort((a, b) => b.eventId.localeCompare(a.eventId))).toEqual([
        { eventId: 're_3RfB:succeeded', type: 'refund.succeeded', amount: 200 },
        { eventId: 're_3RfB:failed', type: 'refund.failed', amount: 200 },
      ]);
    });
  });

  describe('Sber partial refunds', () => {
    /** A time as the gateway writes callbackCreationDate, e.g. `Mon Jan 31 21:46:52 UTC 2022`. */
    function gatewayDate(millis: number): string {
      const [weekday, day, month, year, time] = new Date(millis).toUTCString().split(/,? /);
      return `${weekday} ${month} ${day} ${time} UTC ${year}`;
    }

    it('runs both of two equal partial refunds of one order that carry no refundedAmount', async () => {
      const refundOf = (callbackCreationDate: string) =>
        signSberDelivery({
          callbackToken: SBER_TOKEN,
          payload: {
            ...sberFixtures.refunded({
              orderNumber: 'order-sber-refunds',
              amount: 100000,
              operationRefundedAmount: 30000,
            }),
            callbackCreationDate,
          },
        });
      const first = refundOf(gatewayDate(Date.now() - 9 * 60_000));
      const second = refundOf(gatewayDate(Date.now() - 2 * 60_000));
      expect((await client.send('sber', first)).status).toBe(200);
      expect((await client.send('sber', first)).status).toBe(200);
      expect((await client.send('sber', second)).status).toBe(200);
      const seen = await settledSeen();
      expect(seen.map(({ type, amount }) => ({ type, amount }))).toEqual([
        { type: 'refund.succeeded', amount: 30000 },
        { type: 'refund.succeeded', amount: 30000 },
      ]);
      expect(new Set(seen.map((event) => event.eventId)).size).toBe(2);
    });
  });

  describe('T-Bank partial operations', () => {
    /** Sends a notification of `status`; `amount` is what the payment stands at after it. */
    async function notify(status: string, amount: number): Promise<void> {
      const payload = tbankFixtures.notification(status, {
        orderId: 'order-tbank-partial',
        paymentId: 7100200300,
        amount,
      });
      const response = await client.send(
        'tbank',
        signTBankDelivery({ payload, password: TBANK_PASSWORD }),
      );
      expect(response).toMatchObject({ status: 200, body: 'OK' });
    }

    it('keeps a partly released hold authorized and runs two equal partial refunds', async () => {
      await notify('AUTHORIZED', 100000);
      await notify('PARTIAL_REVERSED', 70000);
      await notify('CONFIRMED', 70000);
      await notify('PARTIAL_REFUNDED', 40000);
      await notify('PARTIAL_REFUNDED', 40000);
      await notify('PARTIAL_REFUNDED', 10000);
      const seen = await settledSeen();
      expect(
        seen
          .map(({ eventId, type, amount }) => ({ eventId, type, amount }))
          .sort((a, b) => a.eventId.localeCompare(b.eventId)),
      ).toEqual([
        { eventId: '7100200300:AUTHORIZED', type: 'payment.authorized', amount: 100000 },
        { eventId: '7100200300:CONFIRMED', type: 'payment.succeeded', amount: 70000 },
        { eventId: '7100200300:PARTIAL_REFUNDED:10000', type: 'refund.succeeded', amount: null },
        { eventId: '7100200300:PARTIAL_REFUNDED:40000', type: 'refund.succeeded', amount: null },
        { eventId: '7100200300:PARTIAL_REVERSED:70000', type: 'payment.authorized', amount: 70000 },
      ]);
    });
  });
});
