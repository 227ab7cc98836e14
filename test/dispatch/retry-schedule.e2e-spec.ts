import { In } from 'typeorm';
import { stripeEndpoint } from 'nestjs-payment-webhooks';
import { post } from '../support/http';
import { WebhookEventEntity, WebhookWorkEntity } from '../support/internals';
import { SignedStripeEvent, signedStripeEvent } from '../support/stripe-event';
import { Database, eventually, startTestApp, TestApp } from '../support/test-app';

const SECRET = 'whsec_retry_schedule';
/** Long enough that no retry comes due while the test reads the schedule. */
const BASE_DELAY_MS = 600_000;
const EVENTS = 20;

function signedEvent(): SignedStripeEvent {
  return signedStripeEvent(SECRET, { amount: 900, currency: 'eur' });
}

describe.each<Database>(['sqlite', 'postgres'])('retry schedule on %s', (database) => {
  let app: TestApp;

  beforeAll(async () => {
    app = await startTestApp({
      platform: 'express',
      database,
      webhooks: {
        endpoints: [stripeEndpoint({ name: 'stripe', secret: SECRET })],
        dispatch: {
          pollIntervalMs: 50,
          retry: { maxAttempts: 5, baseDelayMs: BASE_DELAY_MS, maxDelayMs: 8 * BASE_DELAY_MS },
        },
      },
    });
  });

  afterAll(() => app.close());

  const events = () => app.dataSource.getRepository(WebhookEventEntity);

  /** Waits until every event has failed `attempts` times and returns when each is due next. */
  async function scheduled(eventIds: string[], attempts: number): Promise<number[]> {
    let rows: WebhookEventEntity[] = [];
    await eventually(async () => {
      rows = await events().findBy({ eventId: In(eventIds) });
      return rows.every((row) => row.status === 'retrying' && row.attempts === attempts);
    });
    return rows.map((row) => row.nextAttemptAt!.getTime());
  }

  /** Checks every delay lies within [low, high] of its failure and that the delays spread out. */
  function expectJittered(dueAt: number[], from: number, to: number, low: number, high: number) {
    for (const due of dueAt) {
      expect(due).toBeGreaterThanOrEqual(from + low);
      expect(due).toBeLessThanOrEqual(to + high);
    }
    // NOTE: without jitter every delay would be exactly `high`, so the due times would lie
    // within the time the failures took (to - from); jittered, they spread over (high - low).
    const spread = Math.max(...dueAt) - Math.min(...dueAt);
    expect(spread).toBeGreaterThan(to - from + (high - low) / 10);
  }

  it('spreads the retries of events that failed together over the backoff window', async () => {
    const deliveries = Array.from({ length: EVENTS }, () => signedEvent());
    const eventIds = deliveries.map((delivery) => delivery.id);
    for (const eventId of eventIds) {
      app.control.scripts.set(eventId, { alwaysFail: true });
    }

    const sentAt = Date.now();
    const answers = await Promise.all(
      deliveries.map((delivery) =>
        post(`${app.url}/webhooks/stripe`, delivery.body, delivery.headers),
      ),
    );
    expect(answers.map((answer) => answer.status)).toEqual(eventIds.map(() => 200));
    const first = await scheduled(eventIds, 1);
    // Attempt 1 waits between half and all of the base delay.
    expectJittered(first, sentAt, Date.now(), BASE_DELAY_MS / 2, BASE_DELAY_MS);

    // Bring them all due at once: attempt 2 fails together and waits half to all of 2 × base.
    const dueAt = Date.now();
    const ids = (await events().findBy({ eventId: In(eventIds) })).map((row) => row.id);
    await app.dataSource
      .getRepository(WebhookWorkEntity)
      .update({ eventId: In(ids) }, { nextAttemptAt: new Date(dueAt - 1000) });
    const second = await scheduled(eventIds, 2);
    expectJittered(second, dueAt, Date.now(), BASE_DELAY_MS, 2 * BASE_DELAY_MS);
  });
});
