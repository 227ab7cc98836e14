import { stripeEndpoint, WebhooksModuleOptions } from 'nestjs-payment-webhooks';
import { Gate } from '../../lib/spec-support/gate';
import { post } from '../support/http';
import { SignedStripeEvent, signedStripeEvent } from '../support/stripe-event';
import {
  countEffects,
  Database,
  eventually,
  HandlerControl,
  Platform,
  startTestApp,
  TestAppOptions,
} from '../support/test-app';

const SECRET = 'whsec_answer_under_load';

function signedEvent(): SignedStripeEvent {
  return signedStripeEvent(SECRET, { amount: 700, currency: 'eur' });
}

function webhooks(concurrency: number): WebhooksModuleOptions {
  return {
    endpoints: [stripeEndpoint({ name: 'stripe', secret: SECRET })],
    dispatch: { concurrency, pollIntervalMs: 50 },
    // NOTE: a delivery that waited for a handler's transaction would be answered 503 after this.
    storeTimeoutMs: 10_000,
  };
}

/*
 * Slow handlers hold the database for their whole transaction. A delivery that arrives while
 * they do must be stored and answered without waiting for them: a provider that times out
 * retries, and a burst of slow answers becomes a storm of duplicates. The handlers here hold
 * their transactions until the test has the late delivery's answer, so a 200 is an answer that
 * waited for none of them; one that waited would be a 503 after storeTimeoutMs.
 */
describe.each<[Platform, Database, Partial<TestAppOptions>, number, number]>([
  // Every pooled connection is taken (4 in the pool: two kept for answers, one listening, one
  // holding the handler running) and seven more handlers wait for one: the answer waits for
  // none of them.
  ['express', 'postgres', { poolSize: 4 }, 8, 1],
  // One writer: the handler running holds the database file and three more wait for it. The
  // answer waits for none of them: its delivery goes to the intake file and moves in later.
  ['fastify', 'sqlite', {}, 4, 1],
])(
  'a delivery during slow handlers on %s with %s',
  (platform, database, extra, concurrency, holding) => {
    it('is answered before the handlers ahead of it finish, and every event runs once', async () => {
      const control = new HandlerControl();
      const t = await startTestApp({
        platform,
        database,
        control,
        webhooks: webhooks(concurrency),
        ...extra,
      });
      const handlersHeld = new Gate();
      try {
        const slow = Array.from({ length: concurrency }, () => signedEvent());
        slow.forEach((event) => control.scripts.set(event.id, { until: handlersHeld.opened }));
        // Sent together, so the handlers are claimed together and queue for the database.
        const answers = await Promise.all(
          slow.map((event) => post(`${t.url}/webhooks/stripe`, event.body, event.headers)),
        );
        expect(answers.map((a) => a.status)).toEqual(slow.map(() => 200));
        // Handlers that started are inside their transactions, each holding a connection.
        await eventually(() => control.calls.length >= holding);

        const late = signedEvent();
        const answer = await post(`${t.url}/webhooks/stripe`, late.body, late.headers);
        // Answered while every handler ahead of it still holds its transaction.
        expect(answer.status).toBe(200);
        handlersHeld.open();
        for (const event of [...slow, late]) {
          await eventually(async () => (await countEffects(t, event.id)) === 1, 20_000);
        }
        expect(control.calls).toHaveLength(slow.length + 1);
      } finally {
        handlersHeld.open();
        await t.close();
      }
    }, 40_000);
  },
);

describe('the connections kept for answers on PostgreSQL', () => {
  it('answers after the server cut them, with a fresh connection', async () => {
    const t = await startTestApp({
      platform: 'express',
      database: 'postgres',
      webhooks: webhooks(4),
    });
    try {
      const first = signedEvent();
      expect((await post(`${t.url}/webhooks/stripe`, first.body, first.headers)).status).toBe(200);
      await eventually(async () => (await countEffects(t, first.id)) === 1);
      const [{ cut }] = (await t.dataSource.query(
        'SELECT count(pg_terminate_backend(pid))::int AS cut FROM pg_stat_activity ' +
          'WHERE datname = current_database() AND pid <> pg_backend_pid()',
      )) as { cut: number }[];
      expect(cut).toBeGreaterThan(0);
      // The server's notice that it ended them reaches the client a moment later.
      await new Promise((resolve) => setTimeout(resolve, 200));

      const next = signedEvent();
      expect((await post(`${t.url}/webhooks/stripe`, next.body, next.headers)).status).toBe(200);
      await eventually(async () => (await countEffects(t, next.id)) === 1);
    } finally {
      await t.close();
    }
  });

  it.each([1, 2, 3])(
    'with a pool of %i, keeps what it can spare and every delivery is answered and handled',
    async (poolSize) => {
      const t = await startTestApp({
        platform: 'express',
        database: 'postgres',
        webhooks: webhooks(4),
        poolSize,
      });
      try {
        const events = Array.from({ length: 6 }, () => signedEvent());
        const answers = await Promise.all(
          events.map((event) => post(`${t.url}/webhooks/stripe`, event.body, event.headers)),
        );
        expect(answers.map((a) => a.status)).toEqual(events.map(() => 200));
        for (const event of events) {
          await eventually(async () => (await countEffects(t, event.id)) === 1);
        }
      } finally {
        await t.close();
      }
    },
  );
});
