import { In } from 'typeorm';
import { stripeEndpoint, WebhookStore } from 'nestjs-payment-webhooks';
import { post } from '../support/http';
import { WebhookEventEntity } from '../support/internals';
import { SignedStripeEvent, signedStripeEvent, stripeEventId } from '../support/stripe-event';
import { Database, startTestApp, statementsSent, TestApp } from '../support/test-app';
import { newWebhookEvent } from '../support/webhook-event';

const SECRET = 'whsec_group_commit_secret';
let sequence = 0;

function delivery(): SignedStripeEvent {
  const id = stripeEventId();
  return signedStripeEvent(SECRET, { id, type: 'customer.created', object: { id: `cus_${id}` } });
}

describe.each<Database>(['sqlite', 'postgres'])('group commit on %s', (database) => {
  let app: TestApp;
  let store: WebhookStore;

  beforeAll(async () => {
    app = await startTestApp({
      platform: 'express',
      database,
      webhooks: { endpoints: [stripeEndpoint({ name: 'stripe', secret: SECRET })] },
    });
    store = app.app.get<WebhookStore>(WebhookStore);
  });

  afterAll(() => app.close());

  it('stores every one of 300 concurrent deliveries and 100 re-deliveries, and acknowledges each', async () => {
    const deliveries = Array.from({ length: 300 }, delivery);
    const resent = deliveries.slice(0, 100);
    const responses = await Promise.all(
      [...deliveries, ...resent].map((d) => post(`${app.url}/webhooks/stripe`, d.body, d.headers)),
    );
    expect(responses.filter((response) => response.status === 200)).toHaveLength(400);
    const rows = await app.dataSource
      .getRepository(WebhookEventEntity)
      .find({ select: { eventId: true, deliveryCount: true }, where: { endpoint: 'stripe' } });
    const counts = new Map(rows.map((row) => [row.eventId, row.deliveryCount]));
    expect(deliveries.every((d) => counts.has(d.id))).toBe(true);
    expect(resent.map((d) => counts.get(d.id))).toEqual(resent.map(() => 2));
    expect(deliveries.slice(100).every((d) => counts.get(d.id) === 1)).toBe(true);
  });

  it('writes 2,500 events submitted at once in full batches, each one statement', async () => {
    const ids = Array.from({ length: 2_500 }, () => `evt_burst_${sequence++}`);
    const sent = await statementsSent(app, async () => {
      const results = await Promise.all(ids.map((id) => store.record(newWebhookEvent(id))));
      expect(results.every((result) => !result.duplicate)).toBe(true);
    });
    // NOTE: on PostgreSQL the insert is the first of the statement's data-modifying WITHs.
    const inserts = sent.filter((query) =>
      /^(WITH recorded AS \()?INSERT INTO webhook_events/.test(query),
    ).length;
    // 200 rows a statement on PostgreSQL, 1,000 on SQLite; one statement per row would mean
    // the batches failed and were written one by one.
    expect(inserts).toBe(database === 'sqlite' ? 3 : 13);
    const stored = await app.dataSource
      .getRepository(WebhookEventEntity)
      .countBy({ eventId: In(ids) });
    expect(stored).toBe(ids.length);
  });

  it('answers each delivery of a batch whose event id is stored shortened (longer than its column)', async () => {
    const long = `evt_long_${sequence++}_${'x'.repeat(300)}`;
    const [a, b] = await Promise.all([
      store.record(newWebhookEvent(long)),
      store.record(newWebhookEvent(`evt_short_${sequence++}`)),
    ]);
    expect([a.duplicate, b.duplicate]).toEqual([false, false]);
    expect(a.id).not.toBe(b.id);
    const [again] = await Promise.all([
      store.record(newWebhookEvent(long)),
      store.record(newWebhookEvent(`evt_short_${sequence++}`)),
    ]);
    expect(again).toMatchObject({ id: a.id, duplicate: true });
  });

  it('answers two copies of one event in one batch as one row, the second a duplicate', async () => {
    const id = `evt_same_batch_${sequence++}`;
    const [a, b] = await Promise.all([
      store.record(newWebhookEvent(id)),
      store.record(newWebhookEvent(id)),
    ]);
    expect(a.id).toBe(b.id);
    expect([a.duplicate, b.duplicate].sort()).toEqual([false, true]);
    const row = await app.dataSource
      .getRepository(WebhookEventEntity)
      .findOneByOrFail({ eventId: id });
    expect(row.deliveryCount).toBe(2);
  });

  it('fails only the delivery that cannot be stored, not the others written with it', async () => {
    const good = Array.from({ length: 5 }, () => `evt_good_${sequence++}`);
    const bad = `evt_bad_${sequence++}`;
    const results = await Promise.allSettled([
      ...good.map((id) => store.record(newWebhookEvent(id))),
      // NOTE: violates the status CHECK constraint on both databases.
      store.record(newWebhookEvent(bad, { status: 'bogus' as never })),
    ]);
    expect(results.map((result) => result.status)).toEqual([
      ...good.map(() => 'fulfilled'),
      'rejected',
    ]);
    const stored = await app.dataSource
      .getRepository(WebhookEventEntity)
      .countBy({ endpoint: 'stripe' });
    const ids = await app.dataSource
      .getRepository(WebhookEventEntity)
      .find({ select: { eventId: true } });
    expect(ids.map((row) => row.eventId)).toEqual(expect.arrayContaining(good));
    expect(ids.map((row) => row.eventId)).not.toContain(bad);
    expect(stored).toBeGreaterThanOrEqual(good.length);
  });
});
