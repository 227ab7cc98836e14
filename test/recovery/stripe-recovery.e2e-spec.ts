import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import {
  RecoveryJob,
  stripeEndpoint,
  WebhookRecoveries,
  WebhooksModuleOptions,
} from 'nestjs-payment-webhooks';
import { FakeStripeEvents } from '../support/fake-stripe-events';
import { post } from '../support/http';
import { stripePaymentEvent, stripeEventId } from '../support/stripe-event';
import {
  countEffects,
  Database,
  eventually,
  sameDatabaseAs,
  startTestApp,
  TestApp,
} from '../support/test-app';

const SECRET = 'whsec_recovery_test';
const HOUR_S = 3600;

@Injectable()
class AdminTokenGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const request = context.switchToHttp().getRequest<{ headers: Record<string, string> }>();
    return request.headers['x-admin-token'] === 'let-me-in';
  }
}

/** `count` payment events created over the last hour, as Stripe's log and deliveries carry them. */
function paymentEvents(count: number) {
  const now = Math.floor(Date.now() / 1000);
  return Array.from({ length: count }, (_, n) =>
    stripePaymentEvent(SECRET, { id: stripeEventId(), created: now - HOUR_S + 1 + n }),
  );
}

function webhooks(api: FakeStripeEvents, extra: Partial<WebhooksModuleOptions> = {}) {
  return {
    endpoints: [
      stripeEndpoint({ name: 'stripe', secret: SECRET, api: api.api() }),
      stripeEndpoint({ name: 'stripe-no-key', secret: SECRET }),
    ],
    dispatch: { pollIntervalMs: 50 },
    ...extra,
  };
}

/** Waits until the recovery is no longer running. */
async function finished(recoveries: WebhookRecoveries, id: string): Promise<RecoveryJob> {
  await eventually(async () => (await recoveries.recovery(id))?.status !== 'running', 30_000);
  return (await recoveries.recovery(id))!;
}

/** How many inbox rows hold the provider event `eventId`, and the kinds of its history. */
async function rowsOf(app: TestApp, eventId: string): Promise<{ rows: number; history: string[] }> {
  const rows: { id: string }[] = await app.dataSource.query(
    `SELECT id FROM webhook_events WHERE event_id = ${app.sqliteFile ? '?' : '$1'}`,
    [eventId],
  );
  const history: { kind: string }[] =
    rows.length === 0
      ? []
      : await app.dataSource.query(
          `SELECT kind FROM webhook_history WHERE event_id = ${app.sqliteFile ? '?' : '$1'} ORDER BY id`,
          [rows[0].id],
        );
  return { rows: rows.length, history: history.map((row) => row.kind) };
}

describe.each<Database>(['sqlite', 'postgres'])(
  'recovery from Stripe event log on %s',
  (database) => {
    let api: FakeStripeEvents;
    let app: TestApp;
    let recoveries: WebhookRecoveries;

    beforeEach(async () => {
      api = await FakeStripeEvents.start();
      app = await startTestApp({
        platform: 'express',
        database,
        webhooks: webhooks(api),
        extras: { admin: { guards: [AdminTokenGuard] } },
      });
      recoveries = app.app.get(WebhookRecoveries);
    });

    afterEach(async () => {
      await app?.close();
      await api?.close();
    });

    it('stores the events whose deliveries never arrived, once each, and runs their handlers once', async () => {
      const events = paymentEvents(230);
      api.add(...events.map((event) => JSON.parse(event.body)));
      const delivered = events.slice(0, 5);
      for (const event of delivered) {
        expect((await post(`${app.url}/webhooks/stripe`, event.body, event.headers())).status).toBe(
          200,
        );
      }

      const started = await recoveries.start({
        endpoint: 'stripe',
        since: new Date(Date.now() - 2 * HOUR_S * 1000),
      });
      const job = await finished(recoveries, started.id);

      expect(job).toMatchObject({ status: 'done', found: 230, stored: 225, error: null });
      // NOTE: three pages of at most 100, each after the last event of the one before.
      const pages = api.requests.filter((request) => request.path === '/v1/events');
      expect(pages.map((page) => page.query.get('starting_after'))).toEqual([
        null,
        expect.stringMatching(/^evt_/),
        expect.stringMatching(/^evt_/),
      ]);
      for (const event of events) {
        await eventually(async () => (await countEffects(app, event.id)) === 1);
      }
      expect(await rowsOf(app, delivered[0].id)).toEqual({ rows: 1, history: [] });
      expect(await rowsOf(app, events[100].id)).toEqual({ rows: 1, history: ['recover'] });
      // A late delivery of a recovered event is a duplicate: answered, nothing run again.
      const late = events[42];
      expect((await post(`${app.url}/webhooks/stripe`, late.body, late.headers())).status).toBe(
        200,
      );
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(await countEffects(app, late.id)).toBe(1);
      expect((await rowsOf(app, late.id)).rows).toBe(1);
    });

    it('stores an event once when its delivery races in while the window is read', async () => {
      const events = paymentEvents(40);
      api.add(...events.map((event) => JSON.parse(event.body)));
      api.delayMs = 150;
      const started = await recoveries.start({
        endpoint: 'stripe',
        since: new Date(Date.now() - 2 * HOUR_S * 1000),
      });
      const racing = await Promise.all(
        events
          .slice(0, 10)
          .map((event) => post(`${app.url}/webhooks/stripe`, event.body, event.headers())),
      );
      expect(racing.map((answer) => answer.status)).toEqual(Array(10).fill(200));
      const job = await finished(recoveries, started.id);
      expect(job).toMatchObject({ status: 'done', found: 40 });
      expect(job.stored).toBeLessThanOrEqual(40);
      for (const event of events) {
        await eventually(async () => (await countEffects(app, event.id)) === 1);
        expect((await rowsOf(app, event.id)).rows).toBe(1);
      }
    });

    it('reads a page again after the API failed or limited the rate, from the page it had reached', async () => {
      const events = paymentEvents(150);
      api.add(...events.map((event) => JSON.parse(event.body)));
      api.failAt({ 1: 503, 3: 429, 4: 429 });
      const started = await recoveries.start({
        endpoint: 'stripe',
        since: new Date(Date.now() - 2 * HOUR_S * 1000),
      });
      const job = await finished(recoveries, started.id);
      expect(job).toMatchObject({ status: 'done', found: 150, stored: 150, error: null });
      const pages = api.requests.filter((request) => request.path === '/v1/events');
      expect(pages.map((page) => page.status)).toEqual([503, 200, 429, 429, 200]);
      const second = pages[1 + 1].query.get('starting_after');
      expect(second).toMatch(/^evt_/);
      expect(pages.slice(3).map((page) => page.query.get('starting_after'))).toEqual([
        second,
        second,
      ]);
      for (const event of events) {
        await eventually(async () => (await countEffects(app, event.id)) === 1);
      }
    });

    it('counts, in a dry run, the events the inbox does not have, and stores nothing', async () => {
      const events = paymentEvents(12);
      api.add(...events.map((event) => JSON.parse(event.body)));
      for (const event of events.slice(0, 4)) {
        await post(`${app.url}/webhooks/stripe`, event.body, event.headers());
      }
      const started = await recoveries.start({
        endpoint: 'stripe',
        since: new Date(Date.now() - 2 * HOUR_S * 1000),
        dryRun: true,
      });
      expect(await finished(recoveries, started.id)).toMatchObject({
        status: 'done',
        dryRun: true,
        found: 12,
        stored: 8,
      });
      expect((await rowsOf(app, events[10].id)).rows).toBe(0);
    });

    it('refuses what cannot be read, saying why, and fails a recovery the provider refuses', async () => {
      const since = new Date(Date.now() - HOUR_S * 1000);
      const unknown = recoveries.start({ endpoint: 'nope', since });
      await expect(unknown).rejects.toBeInstanceOf(RangeError);
      await expect(unknown).rejects.toThrow(
        'Cannot recover the events of "nope": there is no endpoint "nope" in this app.',
      );
      await expect(recoveries.start({ endpoint: 'stripe-no-key', since })).rejects.toThrow(
        /endpoint "stripe-no-key" has no API credentials .* give it the api option/,
      );
      await expect(
        recoveries.start({ endpoint: 'stripe', since: new Date(Date.now() - 31 * 86_400_000) }),
      ).rejects.toThrow(/keeps 30 days of events: start the window at .* or later/);
      await expect(recoveries.start({ endpoint: 'stripe', since, until: since })).rejects.toThrow(
        /is not before its end/,
      );

      const other = await startTestApp({
        platform: 'express',
        database,
        ...sameDatabaseAs(app),
        webhooks: {
          endpoints: [
            stripeEndpoint({ name: 'stripe', secret: SECRET, api: api.api('sk_test_revoked') }),
          ],
        },
      });
      try {
        await app.stop();
        const refused = await other.app.get(WebhookRecoveries).start({ endpoint: 'stripe', since });
        const job = await finished(other.app.get(WebhookRecoveries), refused.id);
        expect(job.status).toBe('failed');
        expect(job.error).toMatch(/unauthorized|HTTP 401/);
        expect(job.error).not.toContain('sk_test_revoked');
      } finally {
        await other.stop();
      }
    });

    it('starts, shows, lists and cancels recoveries on the admin routes', async () => {
      const events = paymentEvents(300);
      api.add(...events.map((event) => JSON.parse(event.body)));
      api.delayMs = 300;
      const call = (method: string, path: string) =>
        fetch(`${app.url}/webhooks-admin/${path}`, {
          method,
          headers: {
            'x-admin-token': 'let-me-in',
            ...(method === 'POST' ? { 'content-type': 'application/json' } : {}),
          },
          ...(method === 'POST' ? { body: '{}' } : {}),
        });
      const refused = await call('POST', 'recoveries?endpoint=stripe');
      expect(refused.status).toBe(400);
      expect(await refused.json()).toMatchObject({
        message: 'since is required to start a recovery',
      });
      const unknown = await call('POST', 'recoveries?endpoint=nope&since=2h');
      expect(unknown.status).toBe(400);

      const answer = await call('POST', 'recoveries?endpoint=stripe&since=2h&rate=1000');
      expect(answer.status).toBe(202);
      const started = (await answer.json()) as { id: string; status: string; endpoint: string };
      expect(started).toMatchObject({ status: 'running', endpoint: 'stripe', ratePerSecond: 1000 });
      await eventually(async () => (await recoveries.recovery(started.id))!.found >= 100);
      const canceled = await call('POST', `recoveries/${started.id}/cancel`);
      expect(canceled.status).toBe(200);
      expect(await canceled.json()).toMatchObject({ id: started.id, status: 'canceled' });
      const listed = (await (await call('GET', 'recoveries')).json()) as { id: string }[];
      expect(listed.map((job) => job.id)).toEqual([started.id]);
      expect((await call('GET', `recoveries/${started.id}`)).status).toBe(200);
      expect((await call('POST', `recoveries/${started.id}/cancel`)).status).toBe(404);
      const stopped = await recoveries.recovery(started.id);
      expect(stopped!.found).toBeLessThan(300);
    });
  },
);

describe('one window recovered by two instances at once on postgres', () => {
  let api: FakeStripeEvents;
  const apps: TestApp[] = [];

  beforeAll(async () => {
    api = await FakeStripeEvents.start();
    apps.push(
      await startTestApp({ platform: 'express', database: 'postgres', webhooks: webhooks(api) }),
    );
    apps.push(
      await startTestApp({
        platform: 'fastify',
        database: 'postgres',
        webhooks: webhooks(api),
        ...sameDatabaseAs(apps[0]),
      }),
    );
  });

  afterAll(async () => {
    await apps[1]?.stop();
    await apps[0]?.close();
    await api?.close();
  });

  it('stores each event once and runs its handlers once', async () => {
    const events = paymentEvents(260);
    api.add(...events.map((event) => JSON.parse(event.body)));
    const since = new Date(Date.now() - 2 * HOUR_S * 1000);
    const started = await Promise.all(
      apps.map((app) => app.app.get(WebhookRecoveries).start({ endpoint: 'stripe', since })),
    );
    const jobs = await Promise.all(
      started.map((job, i) => finished(apps[i].app.get(WebhookRecoveries), job.id)),
    );
    expect(jobs.map((job) => [job.status, job.found])).toEqual([
      ['done', 260],
      ['done', 260],
    ]);
    expect(jobs[0].stored + jobs[1].stored).toBe(260);
    for (const event of events) {
      await eventually(async () => (await countEffects(apps[0], event.id)) === 1);
      expect((await rowsOf(apps[0], event.id)).rows).toBe(1);
    }
  });
});

describe('recovery of thin events from the v2 event log', () => {
  let api: FakeStripeEvents;
  let app: TestApp;

  beforeAll(async () => {
    api = await FakeStripeEvents.start();
    app = await startTestApp({
      platform: 'fastify',
      database: 'sqlite',
      webhooks: {
        endpoints: [
          stripeEndpoint({
            name: 'stripe-thin',
            secret: SECRET,
            api: api.api(),
            payloadStyle: 'thin',
          }),
        ],
      },
    });
  });

  afterAll(async () => {
    await app?.close();
    await api?.close();
  });

  it('stores each thin event as its notification would carry it, under its own id', async () => {
    const created = Date.now() - 60_000;
    const thin = Array.from({ length: 130 }, (_, n) => ({
      id: `evt_test_thin_${n}_${stripeEventId().slice(4)}`,
      object: 'v2.core.event',
      type: 'v1.payment_intent.succeeded',
      livemode: false,
      created: new Date(created + n).toISOString(),
      related_object: {
        id: `pi_thin_${n}`,
        type: 'payment_intent',
        url: `/v1/payment_intents/pi_thin_${n}`,
      },
      data: { reason: 'not in a notification' },
    }));
    api.addThin(...thin);
    const recoveries = app.app.get(WebhookRecoveries);
    const started = await recoveries.start({
      endpoint: 'stripe-thin',
      since: new Date(created - 1000),
    });
    expect(await finished(recoveries, started.id)).toMatchObject({
      status: 'done',
      found: 130,
      stored: 130,
    });
    const pages = api.requests.filter((request) => request.path === '/v2/core/events');
    expect(pages.map((page) => page.query.get('page'))).toEqual([null, '100']);
    const [row] = (await app.dataSource.query(
      'SELECT raw_body, payment_ref, type FROM webhook_events WHERE event_id = ?',
      [thin[7].id],
    )) as { raw_body: string | Buffer; payment_ref: string; type: string }[];
    const stored = JSON.parse(row.raw_body.toString());
    expect(stored).toEqual({ ...thin[7], data: undefined });
    expect(stored.data).toBeUndefined();
    expect(row).toMatchObject({ payment_ref: 'pi_thin_7', type: 'payment.succeeded' });
    expect(api.requests.every((request) => request.status === 200)).toBe(true);
  });
});
