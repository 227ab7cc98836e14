import {
  stripeEndpoint,
  tenantEndpoint,
  WebhookRecoveries,
  WebhookStore,
} from 'nestjs-payment-webhooks';
import { FakeStripeEvents } from '../support/fake-stripe-events';
import { post } from '../support/http';
import { RecoverySchedule, SafeLogger } from '../support/internals';
import { stripeEventId, stripePaymentEvent, type StripeTestEvent } from '../support/stripe-event';
import {
  countEffects,
  Database,
  eventually,
  sameDatabaseAs,
  startTestApp,
  TestApp,
} from '../support/test-app';

const SECRET = 'whsec_recovery_schedule';
const HOUR_MS = 3_600_000;

/** A payment event the provider created `agoMs` before now. */
const createdAgo = (agoMs: number) =>
  stripePaymentEvent(SECRET, {
    id: stripeEventId(),
    created: Math.floor((Date.now() - agoMs) / 1000),
  });

function endpoints(api: FakeStripeEvents) {
  return [
    stripeEndpoint({
      name: 'stripe',
      secret: SECRET,
      api: api.api(),
      recover: { everyMs: HOUR_MS },
    }),
  ];
}

describe.each<Database>(['sqlite', 'postgres'])('recovery on a schedule on %s', (database) => {
  let api: FakeStripeEvents;
  let first: TestApp;
  const others: TestApp[] = [];

  beforeAll(async () => {
    api = await FakeStripeEvents.start();
    first = await startTestApp({
      platform: 'express',
      database,
      webhooks: { endpoints: endpoints(api) },
    });
  });

  afterAll(async () => {
    await Promise.all(others.map((app) => app.stop()));
    await first?.close();
    await api?.close();
  });

  it('recovers what was missed while the app was down, once, when its instances start again', async () => {
    // The app took one delivery, then was down for two hours.
    const before = createdAgo(2 * HOUR_MS + 60_000);
    expect((await post(`${first.url}/webhooks/stripe`, before.body, before.headers())).status).toBe(
      200,
    );
    const ago = new Date(Date.now() - 2 * HOUR_MS).toISOString();
    await first.dataSource.query(
      `UPDATE webhook_events SET received_at = ${database === 'sqlite' ? '?' : '$1'}`,
      [database === 'sqlite' ? ago.replace('T', ' ').replace('Z', '') : ago],
    );
    await first.stop();
    const missed = Array.from({ length: 120 }, (_, n) => createdAgo(HOUR_MS + n * 1000));
    // An event older than the last one received is not the schedule's to get back.
    const older = createdAgo(3 * HOUR_MS);
    api.add(...[before, older, ...missed].map((event) => JSON.parse(event.body)));

    // Two instances start at once: one recovery is stored, any of them runs it.
    others.push(
      ...(await Promise.all(
        ['express', 'fastify'].map((platform) =>
          startTestApp({
            platform: platform as 'express' | 'fastify',
            database,
            webhooks: { endpoints: endpoints(api) },
            ...sameDatabaseAs(first),
          }),
        ),
      )),
    );
    const recoveries = others[0].app.get(WebhookRecoveries);
    await eventually(
      async () => (await recoveries.list()).some((job) => job.status === 'done'),
      30_000,
    );
    const jobs = await recoveries.list();
    expect(jobs).toHaveLength(1);
    expect(jobs[0]).toMatchObject({ status: 'done', actor: 'recover-schedule', stored: 120 });
    expect(jobs[0].since.getTime()).toBeGreaterThan(Date.now() - 2 * HOUR_MS - 60_000);
    for (const event of missed) {
      await eventually(async () => (await countEffects(others[0], event.id)) === 1);
    }
    expect(await countEffects(others[0], older.id)).toBe(0);
    expect(await countEffects(others[0], before.id)).toBe(1);
  });

  it('starts the next period from where the last recovery ended, and no more than lookBackMs back', async () => {
    const app = others[0];
    const jobs = app.app.get<WebhookStore>(WebhookStore).queries.recoveries!;
    const endpoint = stripeEndpoint({
      name: 'stripe',
      secret: SECRET,
      api: api.api(),
      recover: { everyMs: HOUR_MS, lookBackMs: 30 * 60_000 },
    });
    const [last] = await app.app.get(WebhookRecoveries).list(1);
    const at = (time: number) => () => new Date(time);
    const endpointsByName = new Map([[endpoint.name, endpoint]]);
    // In the same period: stored already.
    const same = new RecoverySchedule(
      jobs,
      endpointsByName,
      () => undefined,
      at(last.until.getTime() + 1000),
    );
    expect(await same.tick(endpoint)).toBeNull();
    // The next period starts where the last one ended.
    const nextAt = last.until.getTime() + HOUR_MS;
    const next = await new RecoverySchedule(
      jobs,
      endpointsByName,
      () => undefined,
      at(nextAt),
    ).tick(endpoint);
    expect(next).toMatchObject({ since: new Date(nextAt - 30 * 60_000), until: new Date(nextAt) });
    await app.app.get(WebhookRecoveries).cancel(next!.id);
  });
});

/** Each merchant's webhook secret and the key of its own Stripe account. */
const MERCHANTS = {
  acme: { secret: 'whsec_schedule_acme', apiKey: 'sk_test_schedule_acme_000000000000000000' },
  globex: { secret: 'whsec_schedule_globex', apiKey: 'sk_test_schedule_globex_00000000000000000' },
} as const;
type Merchant = keyof typeof MERCHANTS;

/** A payment event of `merchant`'s account, created `agoMs` before now, and its delivery. */
const merchantEvent = (merchant: Merchant, agoMs: number) =>
  stripePaymentEvent(MERCHANTS[merchant].secret, {
    id: stripeEventId(),
    created: Math.floor((Date.now() - agoMs) / 1000),
  });

/** The merchants' tenant endpoint; `known` are the merchants `resolveTenant` finds. */
function merchantsEndpoint(api: FakeStripeEvents, known: readonly string[]) {
  return tenantEndpoint(stripeEndpoint, {
    name: 'merchants',
    recover: { everyMs: HOUR_MS },
    resolveTenant: ({ tenant }) => {
      if (!known.includes(tenant)) {
        return null;
      }
      const { secret, apiKey } = MERCHANTS[tenant as Merchant];
      return { secret, api: api.api(apiKey) };
    },
  });
}

describe.each<Database>(['sqlite', 'postgres'])(
  'recovery of a tenant endpoint on a schedule on %s',
  (database) => {
    let api: FakeStripeEvents;
    let first: TestApp;
    const others: TestApp[] = [];
    const all: Merchant[] = ['acme', 'globex'];
    const missed: Record<Merchant, StripeTestEvent[]> = { acme: [], globex: [] };

    beforeAll(async () => {
      api = await FakeStripeEvents.start();
      first = await startTestApp({
        platform: 'express',
        database,
        webhooks: { endpoints: [merchantsEndpoint(api, all)] },
      });
    });

    afterAll(async () => {
      await Promise.all(others.map((app) => app.stop()));
      await first?.close();
      await api?.close();
    });

    /** The tenants the inbox stores `eventId` under. */
    const tenantsOf = async (app: TestApp, eventId: string): Promise<string[]> => {
      const rows: { tenant: string }[] = await app.dataSource.query(
        `SELECT tenant FROM webhook_events WHERE event_id = ${database === 'sqlite' ? '?' : '$1'}`,
        [eventId],
      );
      return rows.map((row) => row.tenant);
    };

    it('recovers each tenant from its own account with its own key, once, when its instances start again', async () => {
      // Each merchant's app took one delivery, then the app was down for two hours.
      for (const merchant of all) {
        const before = merchantEvent(merchant, 2 * HOUR_MS + 60_000);
        const url = `${first.url}/webhooks/merchants/${merchant}`;
        expect((await post(url, before.body, before.headers())).status).toBe(200);
        api.addTo(MERCHANTS[merchant].apiKey, JSON.parse(before.body));
      }
      const ago = new Date(Date.now() - 2 * HOUR_MS).toISOString();
      await first.dataSource.query(
        `UPDATE webhook_events SET received_at = ${database === 'sqlite' ? '?' : '$1'}`,
        [database === 'sqlite' ? ago.replace('T', ' ').replace('Z', '') : ago],
      );
      await first.stop();
      missed.acme = Array.from({ length: 30 }, (_, n) => merchantEvent('acme', HOUR_MS + n * 1000));
      missed.globex = Array.from({ length: 20 }, (_, n) =>
        merchantEvent('globex', HOUR_MS + n * 1000),
      );
      for (const merchant of all) {
        api.addTo(MERCHANTS[merchant].apiKey, ...missed[merchant].map((e) => JSON.parse(e.body)));
      }

      // Two instances start at once: one recovery per tenant is stored, any of them runs it.
      others.push(
        ...(await Promise.all(
          ['express', 'fastify'].map((platform) =>
            startTestApp({
              platform: platform as 'express' | 'fastify',
              database,
              webhooks: { endpoints: [merchantsEndpoint(api, all)] },
              ...sameDatabaseAs(first),
            }),
          ),
        )),
      );
      const recoveries = others[0].app.get(WebhookRecoveries);
      await eventually(
        async () => (await recoveries.list()).filter((job) => job.status === 'done').length === 2,
        30_000,
      );
      const jobs = await recoveries.list();
      expect(jobs).toHaveLength(2);
      expect(Object.fromEntries(jobs.map((job) => [job.tenant, job]))).toEqual({
        acme: expect.objectContaining({ status: 'done', actor: 'recover-schedule', stored: 30 }),
        globex: expect.objectContaining({ status: 'done', actor: 'recover-schedule', stored: 20 }),
      });
      // Each account was read with its own key only: another key is refused.
      expect(api.requests.filter((request) => request.status !== 200)).toEqual([]);
      for (const merchant of all) {
        for (const event of missed[merchant]) {
          expect(await tenantsOf(others[0], event.id)).toEqual([merchant]);
          await eventually(async () => (await countEffects(others[0], event.id)) === 1);
        }
      }
    });

    it('leaves out a tenant resolveTenant no longer knows, with one warning, and recovers the others', async () => {
      const app = others[0];
      const jobs = app.app.get<WebhookStore>(WebhookStore).queries.recoveries!;
      const recoveries = app.app.get(WebhookRecoveries);
      // acme has left the platform; globex took payments since.
      const endpoint = merchantsEndpoint(api, ['globex']);
      const nextAt =
        Math.max(...(await recoveries.list()).map((job) => job.until.getTime())) + HOUR_MS;
      const late = Array.from({ length: 5 }, () => merchantEvent('globex', -60_000));
      api.addTo(MERCHANTS.globex.apiKey, ...late.map((event) => JSON.parse(event.body)));
      const warnings = jest.spyOn(SafeLogger.prototype, 'warn');
      try {
        const schedule = new RecoverySchedule(
          jobs,
          new Map([[endpoint.name, endpoint]]),
          () => undefined,
          () => new Date(nextAt),
        );
        const stored = await schedule.period(endpoint);
        expect(stored.map((job) => job.tenant)).toEqual(['globex']);
        const about = (tenant: string) =>
          warnings.mock.calls.filter(([message]) => String(message).includes(`"${tenant}"`));
        expect(about('acme')).toHaveLength(1);
        expect(String(about('acme')[0][0])).toContain('knows no tenant "acme"');
        expect(about('globex')).toHaveLength(0);
        // The same period again, on another instance: nothing more is stored.
        expect(await schedule.period(endpoint)).toEqual([]);
        await eventually(async () => (await recoveries.recovery(stored[0].id))?.status === 'done');
        expect(await recoveries.recovery(stored[0].id)).toMatchObject({ stored: 5 });
        for (const event of late) {
          expect(await tenantsOf(app, event.id)).toEqual(['globex']);
        }
      } finally {
        warnings.mockRestore();
      }
    });

    it('fails the recovery of a tenant resolveTenant does not know, and runs the others', async () => {
      const recoveries = others[0].app.get(WebhookRecoveries);
      const since = new Date(Date.now() - HOUR_MS);
      const unknown = await recoveries.start({ endpoint: 'merchants', tenant: 'initech', since });
      const known = await recoveries.start({ endpoint: 'merchants', tenant: 'acme', since });
      await eventually(async () => (await recoveries.recovery(known.id))?.status === 'done');
      await eventually(async () => (await recoveries.recovery(unknown.id))?.status === 'failed');
      expect((await recoveries.recovery(unknown.id))?.error).toContain('knows no tenant "initech"');
    });
  },
);
