import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import {
  OnPaymentEvent,
  PaymentEvent,
  stripeEndpoint,
  BackfillJob,
  WebhookAdmin,
  type WebhookBackfills,
  WebhookContext,
} from 'nestjs-payment-webhooks';
import { post } from '../support/http';
import { stripeEventId, stripePaymentEvent } from '../support/stripe-event';
import {
  applyTestEffect,
  Database,
  eventually,
  HandlerControl,
  sameDatabaseAs,
  startTestApp,
  TestApp,
  TestEffect,
  TestPaymentHandlers,
} from '../support/test-app';

const SECRET = 'whsec_backfill';
const NEW_HANDLER = 'AnalyticsSink.onEvent';

/** The handler an app adds later: payments, and the customers no handler took before. */
@Injectable()
class AnalyticsSink {
  constructor(private readonly control: HandlerControl) {}

  @OnPaymentEvent(['payment.succeeded', 'stripe:customer.created'])
  async onEvent(event: PaymentEvent, ctx: WebhookContext): Promise<void> {
    await applyTestEffect(this.control, 'analytics', event, ctx);
  }
}

/** A third handler, whose runs the tests make throw. */
@Injectable()
class CrmSync {
  constructor(private readonly control: HandlerControl) {}

  @OnPaymentEvent('payment.succeeded')
  async onPayment(event: PaymentEvent, ctx: WebhookContext): Promise<void> {
    await applyTestEffect(this.control, 'crm', event, ctx);
  }
}

/** A handler that throws on every event. */
@Injectable()
class BrokenSink {
  @OnPaymentEvent('payment.succeeded')
  onPayment(): Promise<void> {
    return Promise.reject(new Error('the sink is down'));
  }
}

@Injectable()
class AdminTokenGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const request = context.switchToHttp().getRequest<{ headers: Record<string, string> }>();
    return request.headers['x-admin-token'] === 'let-me-in';
  }
}

const endpoints = () => [stripeEndpoint({ name: 'stripe', secret: SECRET })];

/** The effects of one of the test handlers (`payments`, `analytics`), by provider event id. */
async function effectsOf(app: TestApp, handler: string): Promise<Map<string, number>> {
  const rows = await app.dataSource.getRepository(TestEffect).findBy({ handler });
  const counts = new Map<string, number>();
  rows.forEach((row) => counts.set(row.eventId, (counts.get(row.eventId) ?? 0) + 1));
  return counts;
}

describe.each<Database>(['sqlite', 'postgres'])('backfilling one handler on %s', (database) => {
  let before: TestApp;
  let app: TestApp;
  let backfills: WebhookBackfills;
  const payments: string[] = [];
  const customers: string[] = [];
  const start = new Date(Date.now() - 60_000);

  beforeAll(async () => {
    // The app as it was: the payments handler only; customers were ignored.
    before = await startTestApp({
      platform: 'express',
      database,
      webhooks: { endpoints: endpoints() },
    });
    for (let n = 0; n < 80; n += 1) {
      const event =
        n % 4 === 3
          ? stripePaymentEvent(SECRET, {
              id: stripeEventId(),
              type: 'customer.created',
              object: { id: `cus_${n}`, object: 'customer' },
            })
          : stripePaymentEvent(SECRET, { id: stripeEventId(), orderId: `order-${n}` });
      (n % 4 === 3 ? customers : payments).push(event.id);
      expect(
        (await post(`${before.url}/webhooks/stripe`, event.body, event.headers())).status,
      ).toBe(200);
    }
    const admin = before.app.get(WebhookAdmin);
    await eventually(async () => (await admin.count({ status: ['processed', 'ignored'] })) === 80);
    await before.stop();
    // The app with the handler added later.
    app = await startTestApp({
      platform: 'express',
      database,
      webhooks: { endpoints: endpoints() },
      handlers: [TestPaymentHandlers, AnalyticsSink, CrmSync, BrokenSink],
      extras: { admin: { guards: [AdminTokenGuard] } },
      ...sameDatabaseAs(before),
    });
    backfills = app.app.get(WebhookAdmin).backfills;
  });

  afterAll(async () => {
    await app?.close();
  });

  const finished = async (id: string) => {
    await eventually(async () => (await backfills.backfill(id))?.status !== 'running', 60_000);
    return (await backfills.backfill(id))!;
  };

  it('counts what it would run in a dry run, running nothing', async () => {
    const job = await backfills.start({ handler: NEW_HANDLER, since: start, dryRun: true });
    expect(job).toMatchObject({ status: 'running', total: 80, dryRun: true });
    expect(await finished(job.id)).toMatchObject({ status: 'done', passed: 80, ran: 80 });
    expect((await effectsOf(app, 'analytics')).size).toBe(0);
  });

  it('waits while a pause holds the handler, then runs it once per event and nothing else', async () => {
    const admin = app.app.get(WebhookAdmin);
    await admin.pause({ endpoint: 'stripe', handler: NEW_HANDLER });
    const paymentsBefore = await effectsOf(app, 'payments');
    const job = await backfills.start({ handler: NEW_HANDLER, since: start, actor: 'ops' });
    await eventually(
      async () => (await backfills.backfill(job.id))?.error?.startsWith('waiting') === true,
    );
    expect(await backfills.backfill(job.id)).toMatchObject({ status: 'running', ran: 0 });
    expect((await effectsOf(app, 'analytics')).size).toBe(0);

    await admin.resume({ endpoint: 'stripe', handler: NEW_HANDLER });
    expect(await finished(job.id)).toMatchObject({
      status: 'done',
      total: 80,
      passed: 80,
      ran: 80,
      failed: 0,
      error: null,
    });
    const analytics = await effectsOf(app, 'analytics');
    expect([...analytics.keys()].sort()).toEqual([...payments, ...customers].sort());
    expect([...analytics.values()].every((count) => count === 1)).toBe(true);
    // The payments handler did not run again; the events keep their status.
    expect(await effectsOf(app, 'payments')).toEqual(paymentsBefore);
    expect(await admin.count({ status: 'processed' })).toBe(60);
    expect(await admin.count({ status: 'ignored' })).toBe(20);
    // Each event's history says so.
    const [event] = await admin.list({ eventId: payments[0] });
    const details = await admin.show(event.id);
    expect(details?.history.filter((row) => row.kind === 'backfill')).toEqual([
      expect.objectContaining({ handlerKey: NEW_HANDLER, outcome: 'ran', actor: 'ops' }),
    ]);
  });

  it('finds nothing left to run the second time', async () => {
    const job = await backfills.start({ handler: NEW_HANDLER, since: start });
    expect(job.total).toBe(0);
    expect(await finished(job.id)).toMatchObject({ status: 'done', ran: 0 });
  });

  it('counts the runs that throw, and a later backfill runs those only', async () => {
    const failing = payments.slice(0, 5);
    failing.forEach((id) => app.control.scripts.set(id, { alwaysFail: true }));
    const first = await finished(
      (await backfills.start({ handler: 'CrmSync.onPayment', since: start })).id,
    );
    // The customers' events count as passed: the handler does not take their type.
    expect(first).toMatchObject({ status: 'done', total: 80, passed: 80, ran: 55, failed: 5 });
    const crm = await effectsOf(app, 'crm');
    expect(crm.size).toBe(55);
    expect(failing.some((id) => crm.has(id))).toBe(false);
    const admin = app.app.get(WebhookAdmin);
    const [event] = await admin.list({ eventId: failing[0] });
    const history = (await admin.show(event.id))?.history ?? [];
    expect(history.filter((row) => row.handlerKey === 'CrmSync.onPayment')).toEqual([
      expect.objectContaining({ handlerKey: 'CrmSync.onPayment', outcome: 'failed' }),
    ]);

    failing.forEach((id) => app.control.scripts.delete(id));
    const again = await backfills.start({ handler: 'CrmSync.onPayment', since: start });
    expect(again.total).toBe(25);
    expect(await finished(again.id)).toMatchObject({ status: 'done', ran: 5, failed: 0 });
    const after = await effectsOf(app, 'crm');
    expect(after.size).toBe(60);
    expect([...after.values()].every((count) => count === 1)).toBe(true);
  });

  it('fails, saying why, once the handler throws on 50 events in a row', async () => {
    const job = await finished(
      (await backfills.start({ handler: 'BrokenSink.onPayment', since: start })).id,
    );
    expect(job).toMatchObject({ status: 'failed', ran: 0, failed: 50 });
    expect(job.error).toBe(
      'BrokenSink.onPayment threw on 50 events in a row; the last: Error: the sink is down',
    );
    expect(job.passed).toBeLessThan(80);
  });

  it('answers the admin routes: start, list, show, cancel, and a 400 for an unknown handler', async () => {
    const call = (method: string, path: string) =>
      fetch(`${app.url}/webhooks-admin/${path}`, {
        method,
        headers: {
          'x-admin-token': 'let-me-in',
          ...(method === 'POST' ? { 'content-type': 'application/json' } : {}),
        },
        ...(method === 'POST' ? { body: '{}' } : {}),
      });
    const missing = await call('POST', `backfills?since=1h`);
    expect(missing.status).toBe(400);
    expect(await missing.json()).toMatchObject({
      message: 'handler is required to start a backfill',
    });
    const unknown = await call('POST', 'backfills?handler=Nope.handle&since=1h');
    expect(unknown.status).toBe(400);
    expect(((await unknown.json()) as { message: string }).message).toContain(NEW_HANDLER);

    // A slow dry run, to cancel while it runs, of a handler that never ran on these events.
    const refunds = 'TestPaymentHandlers.onRefund';
    const started = await call(
      'POST',
      `backfills?handler=${refunds}&since=1h&type=payment.succeeded,stripe:customer.created&dryRun=true&rate=1`,
    );
    expect(started.status).toBe(202);
    const job = (await started.json()) as BackfillJob & { scope: { types: string[] } };
    expect(job).toMatchObject({ handler: refunds, dryRun: true, status: 'running', total: 80 });
    expect(job.scope.types).toEqual(['payment.succeeded', 'stripe:customer.created']);
    const shown = await call('GET', `backfills/${job.id}`);
    expect(shown.status).toBe(200);
    expect(((await (await call('GET', 'backfills?limit=1')).json()) as BackfillJob[])[0].id).toBe(
      job.id,
    );
    const canceled = await call('POST', `backfills/${job.id}/cancel`);
    expect(canceled.status).toBe(200);
    expect(await canceled.json()).toMatchObject({ id: job.id, status: 'canceled' });
    expect((await call('POST', `backfills/${job.id}/cancel`)).status).toBe(404);
    expect((await call('GET', 'backfills/0193a7e0-1d52-7c3a-8e4f-6a0b2c9d1e37')).status).toBe(404);
    // Canceled, it passes no more events.
    const passed = (await backfills.backfill(job.id))!.passed;
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect((await backfills.backfill(job.id))!.passed).toBe(passed);
  });
});
