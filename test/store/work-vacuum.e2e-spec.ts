import { stripeEndpoint, WebhookStore } from 'nestjs-payment-webhooks';
import { eventually, startTestApp, TestApp } from '../support/test-app';
import { newWebhookEvent } from '../support/webhook-event';

/**
 * `storage.vacuumWorkEvery`: on PostgreSQL the store vacuums `webhook_work` once that many
 * events were claimed, so claims do not slow down where autovacuum does not reach the table.
 */
describe('the work rows are vacuumed after enough claims (PostgreSQL)', () => {
  let app: TestApp;
  let store: WebhookStore;

  beforeAll(async () => {
    app = await startTestApp({
      platform: 'express',
      database: 'postgres',
      handlers: [],
      webhooks: {
        endpoints: [stripeEndpoint({ name: 'stripe', secret: 'whsec_vacuum' })],
        dispatch: { enabled: false },
        storage: { vacuumWorkEvery: 5 },
      },
    });
    store = app.app.get<WebhookStore>(WebhookStore);
  });

  afterAll(() => app.close());

  async function vacuums(): Promise<number> {
    const [row] = (await app.dataSource.query(
      "SELECT vacuum_count FROM pg_stat_user_tables WHERE relname = 'webhook_work'",
    )) as { vacuum_count: string }[];
    return Number(row.vacuum_count);
  }

  async function claim(count: number): Promise<void> {
    for (let i = 0; i < count; i++) {
      await store.record(
        newWebhookEvent(`evt_vacuum_${process.pid}_${Date.now()}_${i}`, {
          type: 'payment.succeeded',
          nativeType: 'payment_intent.succeeded',
          status: 'pending',
          receivedAt: new Date(Date.now() - 1000),
        }),
      );
    }
    const claimed = await store.claim('test-worker', count, 30_000, new Date());
    expect(claimed).toHaveLength(count);
  }

  it('runs no vacuum before the count is reached, and one once it is', async () => {
    const before = await vacuums();
    await claim(4);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(await vacuums()).toBe(before);

    await claim(1);
    await eventually(async () => (await vacuums()) === before + 1, 10_000);
  });
});
