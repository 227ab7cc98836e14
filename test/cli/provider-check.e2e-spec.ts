import { Injectable } from '@nestjs/common';
import {
  OnPaymentEvent,
  PaymentEvent,
  PendingPayment,
  PendingPaymentsQuery,
  PendingPaymentsSource,
  ReconciliationService,
  WebhookContext,
  tbankEndpoint,
  yookassaEndpoint,
} from 'nestjs-payment-webhooks';
import {
  signTBankDelivery,
  tbankFixtures,
  WebhookTestClient,
  yookassaDelivery,
  yookassaPayment,
} from 'nestjs-payment-webhooks/testing';
import { FakeProviderApi } from '../../lib/spec-support/fake-provider-api';
import { WebhookEventEntity } from '../support/internals';
import { Database, eventually, startTestApp, TestApp } from '../support/test-app';

/** What the test handler saw: the event's own claim and the provider's answer. */
interface Seen {
  eventId: string;
  paymentRef: string | null;
  verifiedStatus: string | undefined;
  fetched?: string;
}

/** The app's own idea of unfinished payments, kept in memory for the test. */
class AwaitingPayment extends PendingPaymentsSource {
  readonly pending = new Map<string, string>();

  async pendingPayments(query: PendingPaymentsQuery): Promise<PendingPayment[]> {
    return [...this.pending.entries()]
      .slice(0, query.limit)
      .map(([paymentRef, merchantRef]) => ({ paymentRef, merchantRef }));
  }
}

@Injectable()
class CheckedHandlers {
  static seen: Seen[] = [];

  constructor(private readonly source: AwaitingPayment) {}

  @OnPaymentEvent('payment.succeeded')
  async paid(event: PaymentEvent, ctx: WebhookContext): Promise<void> {
    const fetched = event.eventId.startsWith('reconcile:')
      ? undefined
      : (await ctx.fetchStatus()).status;
    CheckedHandlers.seen.push({
      eventId: event.eventId,
      paymentRef: event.paymentRef,
      verifiedStatus: event.verified?.status,
      fetched,
    });
    if (event.paymentRef) {
      this.source.pending.delete(event.paymentRef);
    }
  }
}

let sequence = 0;
function paymentId(): string {
  sequence += 1;
  return `2f6a8c1e-000f-5000-9000-${String(process.pid).padStart(6, '0')}${String(sequence).padStart(6, '0')}`;
}

describe.each<Database>(['sqlite', 'postgres'])('asking the provider on %s', (database) => {
  let fake: FakeProviderApi;
  let app: TestApp;
  let client: WebhookTestClient;
  const source = new AwaitingPayment();

  beforeAll(async () => {
    fake = await FakeProviderApi.start();
    const api = fake.clientOptions('yookassa');
    app = await startTestApp({
      platform: 'express',
      database,
      handlers: [CheckedHandlers],
      providers: [
        { provide: AwaitingPayment, useValue: source },
        { provide: PendingPaymentsSource, useValue: source },
      ],
      webhooks: {
        endpoints: [
          yookassaEndpoint({
            name: 'yookassa',
            api: { shopId: api.shopId, secretKey: api.secretKey, apiUrl: api.apiUrl },
            allowedIps: ['127.0.0.1', '::1'],
          }),
        ],
        dispatch: {
          pollIntervalMs: 50,
          retry: { maxAttempts: 3, baseDelayMs: 10, maxDelayMs: 20 },
        },
      },
    });
    client = new WebhookTestClient(app.url);
  });

  afterAll(async () => {
    await app.close();
    await fake.close();
  });

  beforeEach(() => {
    CheckedHandlers.seen = [];
  });

  async function rowOf(eventId: string): Promise<WebhookEventEntity | null> {
    return app.dataSource.getRepository(WebhookEventEntity).findOneBy({ eventId });
  }

  async function settled(eventId: string, status: string): Promise<WebhookEventEntity> {
    let row: WebhookEventEntity | null = null;
    await eventually(async () => (row = await rowOf(eventId))?.status === status);
    return row!;
  }

  function notify(id: string, status: 'succeeded' | 'canceled' = 'succeeded') {
    const event = status === 'succeeded' ? 'payment.succeeded' : 'payment.canceled';
    return client.send(
      'yookassa',
      yookassaDelivery({ event, object: yookassaPayment(status, { id }) }),
    );
  }

  it('runs handlers on the provider’s answer when it confirms the notification', async () => {
    const id = paymentId();
    fake.setPayment('yookassa', id, {
      status: 'succeeded',
      amount: { value: '100.00', currency: 'RUB' },
    });
    expect((await notify(id)).status).toBe(200);
    const row = await settled(`payment.succeeded:${id}`, 'processed');
    expect(row.providerStatus).toBe('succeeded');
    expect(CheckedHandlers.seen).toEqual([
      {
        eventId: `payment.succeeded:${id}`,
        paymentRef: id,
        verifiedStatus: 'succeeded',
        fetched: 'succeeded',
      },
    ]);
    const lookups = fake.requestsTo('yookassa').filter((request) => request.url.endsWith(id));
    expect(lookups.length).toBe(2);
    expect(lookups[0].headers.authorization).toMatch(/^Basic /);
  });

  it('does not run handlers when the provider contradicts a (forged) notification', async () => {
    const id = paymentId();
    fake.setPayment('yookassa', id, {
      status: 'canceled',
      amount: { value: '100.00', currency: 'RUB' },
    });
    expect((await notify(id)).status).toBe(200);
    const row = await settled(`payment.succeeded:${id}`, 'processed');
    expect(row.outcome).toBe('provider_disagrees');
    expect(row.providerStatus).toBe('canceled');
    expect(CheckedHandlers.seen).toEqual([]);
  });

  it('moves a notification about a payment the provider does not know to dead', async () => {
    const id = paymentId();
    expect((await notify(id)).status).toBe(200);
    const row = await settled(`payment.succeeded:${id}`, 'dead');
    expect(row.lastError).toMatch(/not_found|not found|does not know/i);
    expect(CheckedHandlers.seen).toEqual([]);
  });

  it('retries while the provider cannot answer, then runs once', async () => {
    const id = paymentId();
    fake.setPayment('yookassa', id, {
      status: 'succeeded',
      amount: { value: '100.00', currency: 'RUB' },
    });
    fake.failNext('yookassa', { status: 503 });
    expect((await notify(id)).status).toBe(200);
    const row = await settled(`payment.succeeded:${id}`, 'processed');
    expect(row.attempts).toBe(2);
    expect(CheckedHandlers.seen).toHaveLength(1);
  });

  it('moves an event to dead when the provider still cannot answer on the last attempt', async () => {
    const id = paymentId();
    // NOTE: a fourth attempt would get the answer and run the handlers.
    fake.setPayment('yookassa', id, {
      status: 'succeeded',
      amount: { value: '100.00', currency: 'RUB' },
    });
    fake.failNext('yookassa', { status: 503 }, 3);
    expect((await notify(id)).status).toBe(200);
    const row = await settled(`payment.succeeded:${id}`, 'dead');
    expect(row.attempts).toBe(3);
    expect(row.lastError).toMatch(
      new RegExp(`^Asking yookassa about yookassa/payment\\.succeeded:${id} failed: .*503`),
    );
    expect(fake.requestsTo('yookassa').filter((request) => request.url.endsWith(id))).toHaveLength(
      3,
    );
    expect(CheckedHandlers.seen).toEqual([]);
  });

  it('moves an event to dead when the provider still reports the payment unfinished on the last attempt', async () => {
    const id = paymentId();
    fake.setPayment('yookassa', id, {
      status: 'pending',
      amount: { value: '100.00', currency: 'RUB' },
    });
    expect((await notify(id)).status).toBe(200);
    const row = await settled(`payment.succeeded:${id}`, 'dead');
    expect(row.attempts).toBe(3);
    expect(row.lastError).toBe(
      `yookassa reports status "pending" for ${id}, not yet payment.succeeded`,
    );
    expect(row.providerStatus).toBe('pending');
    expect(CheckedHandlers.seen).toEqual([]);
  });

  it('reconciliation recovers a payment whose notification never came, exactly once', async () => {
    const lost = paymentId();
    const open = paymentId();
    fake.setPayment('yookassa', lost, {
      status: 'succeeded',
      amount: { value: '55.10', currency: 'RUB' },
    });
    fake.setPayment('yookassa', open, {
      status: 'pending',
      amount: { value: '10.00', currency: 'RUB' },
    });
    source.pending.clear();
    source.pending.set(lost, 'order-lost');
    source.pending.set(open, 'order-open');
    const reconciliation = app.app.get(ReconciliationService);

    const first = await reconciliation.reconcile({ endpoint: 'yookassa', olderThan: 0 });
    expect(first).toMatchObject({
      checked: 2,
      inAgreement: 1,
      recovered: 1,
      alreadyRecovered: 0,
      failed: [],
    });
    const row = await settled(`reconcile:${lost}:succeeded`, 'processed');
    expect(row).toMatchObject({
      type: 'payment.succeeded',
      merchantRef: 'order-lost',
      amount: 5510,
    });
    expect(CheckedHandlers.seen.map((seen) => seen.paymentRef)).toEqual([lost]);

    const again = await reconciliation.reconcile({ endpoint: 'yookassa', olderThan: 0 });
    expect(again).toMatchObject({ checked: 1, inAgreement: 1, recovered: 0 });
    source.pending.set(lost, 'order-lost');
    const stale = await reconciliation.reconcile({ endpoint: 'yookassa', olderThan: 0 });
    expect(stale).toMatchObject({ checked: 2, recovered: 0, alreadyRecovered: 1 });
    expect(CheckedHandlers.seen).toHaveLength(1);

    fake.failNext('yookassa', { status: 500 }, 2);
    const failing = await reconciliation.reconcile({ endpoint: 'yookassa', olderThan: 0 });
    expect(failing.failed).toHaveLength(2);
    expect(failing.failed[0].error).not.toContain(fake.credentialsFor('yookassa').secretKey);
  });

  it('refuses to reconcile an unknown endpoint with a message naming the known ones', async () => {
    await expect(
      app.app.get(ReconciliationService).reconcile({ endpoint: 'nope' }),
    ).rejects.toThrow(/no such endpoint\. Known: yookassa/);
  });
});

/** What a T-Bank handler saw: the event's own claim and the provider's current state. */
interface SeenTBank {
  eventId: string;
  type: string;
  amount: number | null;
  verifiedStatus: string | undefined;
  verifiedType: string | undefined;
}

@Injectable()
class TBankHandlers {
  static seen: SeenTBank[] = [];

  @OnPaymentEvent(['payment.authorized', 'payment.succeeded', 'refund.succeeded'])
  async handle(event: PaymentEvent): Promise<void> {
    TBankHandlers.seen.push({
      eventId: event.eventId,
      type: event.type,
      amount: event.amount,
      verifiedStatus: event.verified?.status,
      verifiedType: event.verified?.type,
    });
  }
}

describe('asking T-Bank about an event the payment has moved on from', () => {
  let fake: FakeProviderApi;
  let app: TestApp;
  let client: WebhookTestClient;
  let password: string;

  beforeAll(async () => {
    fake = await FakeProviderApi.start();
    const api = fake.clientOptions('tbank');
    password = api.password;
    app = await startTestApp({
      platform: 'express',
      database: 'sqlite',
      handlers: [TBankHandlers],
      webhooks: {
        endpoints: [
          tbankEndpoint({
            name: 'tbank',
            password: api.password,
            terminalKey: api.terminalKey,
            api: { apiUrl: api.apiUrl },
            verifyWithProvider: true,
          }),
        ],
        dispatch: {
          pollIntervalMs: 50,
          retry: { maxAttempts: 3, baseDelayMs: 10, maxDelayMs: 20 },
        },
      },
    });
    client = new WebhookTestClient(app.url);
  });

  afterAll(async () => {
    await app.close();
    await fake.close();
  });

  beforeEach(() => {
    TBankHandlers.seen = [];
  });

  async function settled(eventId: string, status: string): Promise<WebhookEventEntity> {
    let row: WebhookEventEntity | null = null;
    await eventually(
      async () =>
        (row = await app.dataSource.getRepository(WebhookEventEntity).findOneBy({ eventId }))
          ?.status === status,
    );
    return row!;
  }

  async function notify(status: string, paymentId: number): Promise<void> {
    const payload = tbankFixtures.notification(status, {
      orderId: `order-${paymentId}`,
      paymentId,
      amount: 150000,
      terminalKey: fake.clientOptions('tbank').terminalKey,
    });
    const response = await client.send('tbank', signTBankDelivery({ payload, password }));
    expect(response).toMatchObject({ status: 200, body: 'OK' });
  }

  it('runs the paid handlers of a CONFIRMED checked after the payment was refunded', async () => {
    const paymentId = 6200000001;
    fake.setPayment('tbank', String(paymentId), { Status: 'REFUNDED', Amount: 150000 });
    await notify('CONFIRMED', paymentId);
    const row = await settled(`${paymentId}:CONFIRMED`, 'processed');
    expect(row.outcome).not.toBe('provider_disagrees');
    expect(row.providerStatus).toBe('REFUNDED');
    expect(TBankHandlers.seen).toEqual([
      {
        eventId: `${paymentId}:CONFIRMED`,
        type: 'payment.succeeded',
        amount: 150000,
        verifiedStatus: 'REFUNDED',
        verifiedType: 'refund.succeeded',
      },
    ]);
  });

  it('runs the handlers of an AUTHORIZED checked after the payment was confirmed', async () => {
    const paymentId = 6200000002;
    fake.setPayment('tbank', String(paymentId), { Status: 'CONFIRMED', Amount: 150000 });
    await notify('AUTHORIZED', paymentId);
    await settled(`${paymentId}:AUTHORIZED`, 'processed');
    expect(TBankHandlers.seen.map((seen) => [seen.type, seen.verifiedStatus])).toEqual([
      ['payment.authorized', 'CONFIRMED'],
    ]);
  });

  it('still runs nothing for a CONFIRMED when T-Bank says the payment was reversed', async () => {
    const paymentId = 6200000003;
    fake.setPayment('tbank', String(paymentId), { Status: 'REVERSED', Amount: 150000 });
    await notify('CONFIRMED', paymentId);
    const row = await settled(`${paymentId}:CONFIRMED`, 'processed');
    expect(row.outcome).toBe('provider_disagrees');
    expect(TBankHandlers.seen).toEqual([]);
  });
});
