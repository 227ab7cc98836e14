import { Injectable } from '@nestjs/common';
import {
  OnPaymentEvent,
  PaymentEvent,
  PendingPayment,
  PendingPaymentsQuery,
  PendingPaymentsSource,
  ReconciliationService,
  WebhookContext,
  yookassaEndpoint,
} from 'nestjs-payment-webhooks';
import {
  WebhookTestClient,
  YooKassaTestApi,
  startYooKassaTestApi,
  yookassaDelivery,
  yookassaPayment,
  yookassaRefund,
} from 'nestjs-payment-webhooks/testing';
import { WebhookEventEntity } from '../support/internals';
import { eventually, Platform, startTestApp, TestApp } from '../support/test-app';

/** What a handler saw: the notification's claim next to the API's answer. */
interface Seen {
  readonly eventId: string;
  readonly paymentRef: string | null;
  readonly verifiedStatus: string | undefined;
  readonly fetched: string;
}

/** The app's own list of payments it still waits for, kept in memory for the test. */
class AwaitedPayments extends PendingPaymentsSource {
  readonly awaited: PendingPayment[] = [];

  async pendingPayments(query: PendingPaymentsQuery): Promise<PendingPayment[]> {
    return this.awaited.slice(0, query.limit);
  }
}

@Injectable()
class AnsweredHandlers {
  static seen: Seen[] = [];

  @OnPaymentEvent(['payment.succeeded', 'refund.succeeded'])
  async settled(event: PaymentEvent, ctx: WebhookContext): Promise<void> {
    AnsweredHandlers.seen.push({
      eventId: event.eventId,
      paymentRef: event.paymentRef,
      verifiedStatus: event.verified?.status,
      fetched: (await ctx.fetchStatus()).status,
    });
  }
}

let sequence = 0;
/** A YooKassa-like id of its own per call, so each notification is a new event. */
function objectId(kind: '000f' | '0015'): string {
  sequence += 1;
  const tail = `${String(process.pid).padStart(6, '0')}${String(sequence).padStart(6, '0')}`;
  return `2f6a8c1e-${kind}-5000-9000-${tail}`;
}

describe.each<Platform>(['express', 'fastify'])(
  'a YooKassa endpoint asking startYooKassaTestApi() on %s',
  (platform) => {
    let api: YooKassaTestApi;
    let app: TestApp;
    let client: WebhookTestClient;
    const source = new AwaitedPayments();

    beforeAll(async () => {
      api = await startYooKassaTestApi();
      app = await startTestApp({
        platform,
        database: 'sqlite',
        handlers: [AnsweredHandlers],
        providers: [{ provide: PendingPaymentsSource, useValue: source }],
        webhooks: {
          endpoints: [
            yookassaEndpoint({
              name: 'yookassa',
              api: api.clientOptions,
              allowedIps: ['127.0.0.1', '::1'],
            }),
          ],
          dispatch: {
            pollIntervalMs: 50,
            // NOTE: retries far enough apart for a test to change the API's answer in between.
            retry: { maxAttempts: 3, baseDelayMs: 200, maxDelayMs: 400 },
          },
        },
      });
      client = new WebhookTestClient(app.url);
    });

    afterAll(async () => {
      await app.close();
      await api.close();
    });

    beforeEach(() => {
      AnsweredHandlers.seen = [];
    });

    async function settledRow(eventId: string, status: string): Promise<WebhookEventEntity> {
      const rows = app.dataSource.getRepository(WebhookEventEntity);
      let row: WebhookEventEntity | null = null;
      await eventually(async () => (row = await rows.findOneBy({ eventId }))?.status === status);
      return row!;
    }

    function lookupsOf(id: string) {
      return api.requests.filter((request) => request.path.endsWith(`/${id}`));
    }

    it('runs handlers on the API’s answer when it confirms the payment', async () => {
      const id = objectId('000f');
      api.payments.set(id, yookassaPayment('succeeded', { id }));
      const delivery = yookassaDelivery({
        event: 'payment.succeeded',
        object: yookassaPayment('succeeded', { id }),
      });
      expect((await client.send('yookassa', delivery)).status).toBe(200);
      const row = await settledRow(`payment.succeeded:${id}`, 'processed');
      expect(row).toMatchObject({ providerStatus: 'succeeded', merchantRef: 'order-1042' });
      expect(AnsweredHandlers.seen).toEqual([
        {
          eventId: `payment.succeeded:${id}`,
          paymentRef: id,
          verifiedStatus: 'succeeded',
          fetched: 'succeeded',
        },
      ]);
      const basic = Buffer.from(`${api.clientOptions.shopId}:${api.clientOptions.secretKey}`);
      expect(lookupsOf(id)).toEqual([
        expect.objectContaining({ method: 'GET', path: `/v3/payments/${id}`, status: 200 }),
        expect.objectContaining({ method: 'GET', path: `/v3/payments/${id}`, status: 200 }),
      ]);
      expect(lookupsOf(id)[0].headers.authorization).toBe(`Basic ${basic.toString('base64')}`);
    });

    it('stores the API’s status and runs no handler when the API contradicts the notification', async () => {
      const id = objectId('000f');
      api.payments.set(id, yookassaPayment('canceled', { id }));
      const forged = yookassaDelivery({
        event: 'payment.succeeded',
        object: yookassaPayment('succeeded', { id }),
      });
      expect((await client.send('yookassa', forged)).status).toBe(200);
      const row = await settledRow(`payment.succeeded:${id}`, 'processed');
      expect(row).toMatchObject({ outcome: 'provider_disagrees', providerStatus: 'canceled' });
      expect(AnsweredHandlers.seen).toEqual([]);
    });

    it('retries while the API reports the payment pending, and runs once it has succeeded', async () => {
      const id = objectId('000f');
      api.payments.set(id, yookassaPayment('pending', { id }));
      const delivery = yookassaDelivery({
        event: 'payment.succeeded',
        object: yookassaPayment('succeeded', { id }),
      });
      expect((await client.send('yookassa', delivery)).status).toBe(200);
      const eventId = `payment.succeeded:${id}`;
      const rows = app.dataSource.getRepository(WebhookEventEntity);
      await eventually(
        async () => (await rows.findOneBy({ eventId }))?.providerStatus === 'pending',
      );
      expect(AnsweredHandlers.seen).toEqual([]);
      api.payments.set(id, yookassaPayment('succeeded', { id }));
      const row = await settledRow(eventId, 'processed');
      expect(row).toMatchObject({ providerStatus: 'succeeded', attempts: 2 });
      expect(AnsweredHandlers.seen).toMatchObject([{ eventId, verifiedStatus: 'succeeded' }]);
    });

    it('asks about a refund under /v3/refunds and acts on its status there', async () => {
      const paymentId = objectId('000f');
      const refundId = objectId('0015');
      const refund = yookassaRefund({ id: refundId, payment_id: paymentId });
      api.refunds.set(refundId, refund);
      const delivery = yookassaDelivery({ event: 'refund.succeeded', object: refund });
      expect((await client.send('yookassa', delivery)).status).toBe(200);
      const row = await settledRow(`refund.succeeded:${refundId}`, 'processed');
      expect(row).toMatchObject({ providerStatus: 'succeeded', paymentRef: paymentId });
      expect(AnsweredHandlers.seen).toMatchObject([
        { paymentRef: paymentId, verifiedStatus: 'succeeded' },
      ]);
      expect(lookupsOf(refundId)[0]).toMatchObject({ path: `/v3/refunds/${refundId}` });
      expect(lookupsOf(paymentId)).toEqual([]);
    });

    it('moves a notification about a payment the API does not hold to dead', async () => {
      const id = objectId('000f');
      const delivery = yookassaDelivery({
        event: 'payment.succeeded',
        object: yookassaPayment('succeeded', { id }),
      });
      expect((await client.send('yookassa', delivery)).status).toBe(200);
      const row = await settledRow(`payment.succeeded:${id}`, 'dead');
      expect(row.lastError).toMatch(/not_found|not found|does not know/i);
      expect(lookupsOf(id).map((request) => request.status)).toContain(404);
      expect(AnsweredHandlers.seen).toEqual([]);
    });

    it('lets reconciliation recover a payment from the API when its notification never came', async () => {
      const id = objectId('000f');
      api.payments.set(id, yookassaPayment('succeeded', { id }));
      source.awaited.splice(0, source.awaited.length, {
        paymentRef: id,
        merchantRef: 'order-1042',
      });
      const reconciliation = app.app.get(ReconciliationService);
      const report = await reconciliation.reconcile({ endpoint: 'yookassa', olderThan: 0 });
      expect(report).toMatchObject({ checked: 1, recovered: 1, failed: [] });
      const row = await settledRow(`reconcile:${id}:succeeded`, 'processed');
      expect(row).toMatchObject({
        type: 'payment.succeeded',
        merchantRef: 'order-1042',
        amount: 10000,
        currency: 'RUB',
      });
      expect(lookupsOf(id)[0]).toMatchObject({ path: `/v3/payments/${id}`, status: 200 });
      expect(AnsweredHandlers.seen.map((seen) => seen.paymentRef)).toEqual([id]);
    });
  },
);
