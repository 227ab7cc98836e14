import { stripeEndpoint, WebhookAdmin } from 'nestjs-payment-webhooks';
import { post } from '../support/http';
import { WebhookEventEntity } from '../support/internals';
import { SignedStripeEvent, signedStripeEvent, stripeEventId } from '../support/stripe-event';
import { Database, eventually, sameDatabaseAs, startTestApp, TestApp } from '../support/test-app';

/**
 * A replay's rate holds over every window, from its first event on: a replay at 40 a second
 * puts back at most 41 events in any second and at most 40 × T + 1 in any T seconds, in the
 * background and in the foreground (the CLI's `--rate`, `POST replay`). The times are those of
 * the events' history, as `events show` lists them. Only upper bounds are checked: a busy
 * machine can only slow a replay down.
 *
 * The pace is the same code on both databases; what differs is how each stores the times it
 * reads back: the history's, and the last batch's of a replay, which an instance carrying the
 * replay on after a restart waits after. The restart runs on both databases, the replays in
 * one go on SQLite.
 */

const SECRET = 'whsec_replay_rate';
const RATE = 40;
/** More than 2 × RATE + 1: a replay lasts more than two seconds, and each window is checked. */
const EVENTS = 90;

function delivery(): SignedStripeEvent {
  const id = stripeEventId();
  return signedStripeEvent(SECRET, { id, orderId: `o-${id}`, amount: 900, currency: 'eur' });
}

/** The most of `times` (sorted, in ms) that fall within one window of `windowMs`, ends included. */
function mostWithin(times: readonly number[], windowMs: number): number {
  let most = 0;
  let first = 0;
  for (let last = 0; last < times.length; last++) {
    while (times[last] - times[first] > windowMs) {
      first += 1;
    }
    most = Math.max(most, last - first + 1);
  }
  return most;
}

describe.each<Database>(['sqlite', 'postgres'])('the rate of a replay on %s', (database) => {
  let app: TestApp;
  let admin: WebhookAdmin;
  /** Every instance started, the first one owning the database. */
  const started: TestApp[] = [];

  /** An instance of the app: the first on a new database, the next ones on the same. */
  async function start(): Promise<void> {
    app = await startTestApp({
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
    started.push(app);
    admin = app.app.get(WebhookAdmin);
  }

  beforeAll(() => start());

  afterAll(async () => {
    for (const instance of started.reverse()) {
      await instance.close();
    }
  });

  /**
   * Stores `EVENTS` events whose handler always fails, each dead after its one attempt: their
   * inbox ids, and a time before the first of them.
   */
  async function deadEvents(): Promise<{ ids: string[]; since: Date }> {
    const since = new Date(Date.now() - 1);
    const events = Array.from({ length: EVENTS }, delivery);
    for (const event of events) {
      app.control.scripts.set(event.id, { alwaysFail: true });
      expect((await post(`${app.url}/webhooks/stripe`, event.body, event.headers)).status).toBe(
        200,
      );
    }
    await eventually(async () => (await admin.count({ status: 'dead', since })) === EVENTS, 30_000);
    // NOTE: replayed, they succeed: an event dead again would match the replay's filter again.
    events.forEach((event) => app.control.scripts.delete(event.id));
    const rows = app.dataSource.getRepository(WebhookEventEntity);
    const ids = await Promise.all(
      events.map(async (event) => (await rows.findOneByOrFail({ eventId: event.id })).id),
    );
    return { ids, since };
  }

  /** When each event was put back by a replay, as its history says, in order. */
  async function replayTimes(ids: readonly string[]): Promise<number[]> {
    const times = await Promise.all(
      ids.map(async (id) =>
        (await admin.show(id))!.history
          .filter((entry) => entry.kind === 'replay')
          .map((entry) => entry.at.getTime()),
      ),
    );
    return times.flat().sort((a, b) => a - b);
  }

  function expectRateHeld(times: readonly number[]): void {
    expect(times).toHaveLength(EVENTS);
    expect(mostWithin(times, 1_000)).toBeLessThanOrEqual(RATE + 1);
    expect(mostWithin(times, 2_000)).toBeLessThanOrEqual(2 * RATE + 1);
    expect(mostWithin(times, 250)).toBeLessThanOrEqual(RATE / 4 + 1);
    const first = times.filter((time) => time - times[0] <= 4_090).length;
    expect(first).toBeLessThanOrEqual(Math.floor(RATE * 4.09) + 1);
  }

  it('in the background, carried on after a restart: at most rate × T + 1 in any T seconds', async () => {
    const { ids, since } = await deadEvents();
    const job = await admin.startReplay({ status: 'dead', since, ratePerSecond: RATE });
    await eventually(async () => (await admin.replayJob(job.id))!.replayed >= RATE);
    await app.stop();
    await start();
    // NOTE: stopped with more than a second of the replay left: the new instance carried it on.
    expect((await admin.replayJob(job.id))!.replayed).toBeLessThan(EVENTS);
    await eventually(async () => (await admin.replayJob(job.id))!.status === 'done', 60_000);
    expectRateHeld(await replayTimes(ids));
  });

  if (database === 'sqlite') {
    it('in the background: at most rate × T + 1 events in any T seconds', async () => {
      const { ids, since } = await deadEvents();
      const job = await admin.startReplay({ status: 'dead', since, ratePerSecond: RATE });
      await eventually(async () => (await admin.replayJob(job.id))!.status === 'done', 60_000);
      expectRateHeld(await replayTimes(ids));
    });

    it('in the foreground: at most rate × T + 1 events in any T seconds', async () => {
      const { ids, since } = await deadEvents();
      const report = await admin.replay({ status: 'dead', since, ratePerSecond: RATE });
      expect(report.replayed).toBe(EVENTS);
      expectRateHeld(await replayTimes(ids));
    });
  }
});
