import { stripeEndpoint, WebhookAdmin } from 'nestjs-payment-webhooks';
import { post } from '../support/http';
import { WebhookEventEntity } from '../support/internals';
import { SignedStripeEvent, signedStripeEvent, stripeEventId } from '../support/stripe-event';
import {
  countEffects,
  Database,
  eventually,
  sameDatabaseAs,
  startTestApp,
  TestApp,
} from '../support/test-app';

/**
 * A replay in the background: it counts what it will put back, keeps to its rate, can be
 * canceled between batches, carries on after its instance stops (from where it was, by another
 * instance), and puts back each event once however many instances share it.
 */

const SECRET = 'whsec_replay_jobs';
const DEAD = 24;

function delivery(): SignedStripeEvent {
  const id = stripeEventId();
  return signedStripeEvent(SECRET, { id, orderId: `o-${id}`, amount: 900, currency: 'eur' });
}

describe.each<Database>(['sqlite', 'postgres'])('replays in the background on %s', (database) => {
  let app: TestApp;
  let admin: WebhookAdmin;
  let dead: SignedStripeEvent[];
  /** A time before the test's events: what it counts is its own. */
  let since: Date;
  /** Every instance started, the first one owning the database. */
  const started: TestApp[] = [];

  /** An instance of the app: the first on a new database, the next ones on the same. */
  async function start(): Promise<TestApp> {
    const instance = await startTestApp({
      platform: 'express',
      database,
      ...(started[0] ? sameDatabaseAs(started[0]) : {}),
      webhooks: {
        endpoints: [stripeEndpoint({ name: 'stripe', secret: SECRET })],
        dispatch: {
          pollIntervalMs: 20,
          retry: { maxAttempts: 1, baseDelayMs: 10, maxDelayMs: 20 },
        },
      },
    });
    started.push(instance);
    return instance;
  }

  /** Stores `DEAD` events whose handler fails once, each dead after its one attempt. */
  async function deadEvents(): Promise<SignedStripeEvent[]> {
    const events = Array.from({ length: DEAD }, delivery);
    for (const event of events) {
      app.control.scripts.set(event.id, { alwaysFail: true });
      expect((await post(`${app.url}/webhooks/stripe`, event.body, event.headers)).status).toBe(
        200,
      );
    }
    await eventually(async () => (await admin.count({ status: 'dead', since })) === events.length);
    events.forEach((event) => app.control.scripts.delete(event.id));
    return events;
  }

  /** How many replay rows each event's history has. */
  async function replaysPerEvent(events: readonly SignedStripeEvent[]): Promise<number[]> {
    const rows = app.dataSource.getRepository(WebhookEventEntity);
    return Promise.all(
      events.map(async (event) => {
        const { id } = await rows.findOneByOrFail({ eventId: event.id });
        return (await admin.show(id))!.history.filter((entry) => entry.kind === 'replay').length;
      }),
    );
  }

  beforeAll(async () => {
    app = await start();
    admin = app.app.get(WebhookAdmin);
  });

  afterAll(async () => {
    for (const instance of [...started].reverse()) {
      await instance.close();
    }
  });

  beforeEach(async () => {
    since = new Date(Date.now() - 1);
    dead = await deadEvents();
  });

  // NOTE: one app for the tests: each starts with no replay running and no dead event before it.
  afterEach(async () => {
    for (const job of await admin.replayJobs(1000)) {
      await admin.cancelReplay(job.id);
    }
    await admin.discard({}, { reason: 'end of a test' });
  });

  it('puts back every matching event once, at its rate, and reports its progress', async () => {
    const job = await admin.startReplay({ status: 'dead', ratePerSecond: 20, actor: 'ops' });
    expect(job).toMatchObject({
      status: 'running',
      total: DEAD,
      replayed: 0,
      ratePerSecond: 20,
      actor: 'ops',
    });

    // Twenty a second: part of the way after a quarter of a second, all of it after more than one.
    let midway = job;
    await eventually(async () => {
      midway = (await admin.replayJob(job.id))!;
      return midway.replayed >= 5;
    });
    expect(midway.replayed).toBeLessThan(DEAD);
    expect(midway.status).toBe('running');

    await eventually(async () => (await admin.replayJob(job.id))!.status === 'done', 10_000);
    expect(await admin.replayJob(job.id)).toMatchObject({ replayed: DEAD, total: DEAD });
    await eventually(async () => (await admin.count({ status: 'processed', since })) === DEAD);
    for (const event of dead) {
      expect(await countEffects(app, event.id)).toBe(1);
    }
    expect(await replaysPerEvent(dead)).toEqual(dead.map(() => 1));
    expect((await admin.replayJobs())[0]).toMatchObject({ id: job.id, status: 'done' });
  });

  it('stops at a cancel, keeping what it put back', async () => {
    const job = await admin.startReplay({ ratePerSecond: 10 });
    await eventually(async () => (await admin.replayJob(job.id))!.replayed >= 4);
    expect(await admin.cancelReplay(job.id)).toBe(true);
    expect(await admin.cancelReplay(job.id)).toBe(false);
    const canceled = (await admin.replayJob(job.id))!;
    // NOTE: six events' time at its rate: were it still running, some would be put back.
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(await admin.replayJob(job.id)).toMatchObject({
      status: 'canceled',
      replayed: canceled.replayed,
    });
    expect(canceled.replayed).toBeLessThan(DEAD);
    await eventually(
      async () => (await admin.count({ status: 'processed', since })) === canceled.replayed,
    );
    expect(await admin.count({ status: 'dead', since })).toBe(DEAD - canceled.replayed);
  });

  it('carries on after its instance stops, from where it was, on the next instance', async () => {
    const job = await admin.startReplay({ ratePerSecond: 20 });
    // NOTE: the other 20 take the instance a second more: it stops well before they are back.
    await eventually(async () => (await admin.replayJob(job.id))!.replayed >= 4);
    // The instance stops and gives its replay back; the next one carries it on.
    await app.stop();
    app = await start();
    admin = app.app.get(WebhookAdmin);
    const stoppedAt = (await admin.replayJob(job.id))!;
    expect(stoppedAt.replayed).toBeLessThan(DEAD);
    await eventually(async () => (await admin.replayJob(job.id))!.status === 'done', 15_000);
    expect((await admin.replayJob(job.id))!.replayed).toBe(DEAD);
    expect(await replaysPerEvent(dead)).toEqual(dead.map(() => 1));
  });

  it('puts back each event once when two instances share the replays', async () => {
    const second = await start();
    try {
      const job = await admin.startReplay({ ratePerSecond: 50 });
      await eventually(async () => (await admin.replayJob(job.id))!.status === 'done', 15_000);
      expect((await admin.replayJob(job.id))!.replayed).toBe(DEAD);
      expect(await replaysPerEvent(dead)).toEqual(dead.map(() => 1));
      await eventually(async () => (await admin.count({ status: 'processed', since })) === DEAD);
    } finally {
      await second.close();
    }
  });

  it('refuses a rate that is not a positive whole number', async () => {
    const before = await admin.replayJobs(1000);
    await expect(admin.startReplay({ ratePerSecond: 0 })).rejects.toThrow(/positive whole number/);
    await expect(admin.startReplay({ ratePerSecond: 2.5 })).rejects.toThrow(
      /positive whole number/,
    );
    expect(await admin.replayJobs(1000)).toEqual(before);
  });
});
