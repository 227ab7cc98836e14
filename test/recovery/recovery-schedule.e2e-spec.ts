import { stripeEndpoint, WebhookRecoveries, WebhookStore } from 'nestjs-payment-webhooks';
import { FakeStripeEvents } from '../support/fake-stripe-events';
import { post } from '../support/http';
import { RecoverySchedule } from '../support/internals';
import { stripeEventId, stripePaymentEvent } from '../support/stripe-event';
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
