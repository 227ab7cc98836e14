import { NewWebhookEvent, stripeEndpoint, WebhookStore } from 'nestjs-payment-webhooks';
import { In } from 'typeorm';
import { liveEvent } from '../support/inbox-state';
import { WebhookHandlerRunEntity } from '../support/internals';
import { eventually, startTestApp, TestApp, TestEffect } from '../support/test-app';
import { newWebhookEvent } from '../support/webhook-event';
import { WorkerProcess } from '../support/worker-process';

const SECRET = 'whsec_batch_crash';
const EVENTS = 8;
/** The worker's lease: how soon the next worker takes over a killed one's events. */
const LEASE_MS = 1500;

let sequence = 0;

function paymentEvent(): NewWebhookEvent {
  const eventId = `evt_batch_crash_${process.pid}_${sequence++}`;
  return newWebhookEvent(eventId, {
    type: 'payment.succeeded',
    nativeType: 'payment_intent.succeeded',
    paymentRef: `pi_${eventId}`,
    merchantRef: `order_${eventId}`,
    status: 'pending',
  });
}

/**
 * A worker killed with SIGKILL inside a batch of handler runs (`batch-worker.main.ts`): before
 * the batch's commit nothing of it counts and the next worker runs every handler once; after it,
 * every run of the batch counts and the next worker runs only what was left.
 */
describe('batched handler runs under SIGKILL (PostgreSQL)', () => {
  let app: TestApp;
  let store: WebhookStore;
  const children: WorkerProcess[] = [];

  beforeAll(async () => {
    app = await startTestApp({
      platform: 'express',
      database: 'postgres',
      handlers: [],
      webhooks: {
        endpoints: [stripeEndpoint({ name: 'stripe', secret: SECRET })],
        dispatch: { enabled: false },
      },
    });
    store = app.app.get<WebhookStore>(WebhookStore);
  });

  afterEach(async () => {
    for (const child of children.splice(0)) {
      await child.kill();
    }
  });

  afterAll(() => app.close());

  function worker(freeze: 'before-commit' | 'after-commit' | 'none'): Promise<WorkerProcess> {
    return WorkerProcess.start('batch-worker.main.ts', {
      DATABASE_URL: app.databaseUrl!,
      STRIPE_SECRET: SECRET,
      LEASE_MS: String(LEASE_MS),
      FREEZE: freeze,
      FREEZE_HANDLER: 'first',
    }).then((child) => {
      children.push(child);
      return child;
    });
  }

  async function recorded(): Promise<string[]> {
    const ids: string[] = [];
    for (let i = 0; i < EVENTS; i++) {
      const event = paymentEvent();
      await store.record(event);
      ids.push(event.eventId);
    }
    return ids;
  }

  /** Effect rows per event of `handler`, in the order of `eventIds`. */
  async function effects(eventIds: readonly string[], handler: string): Promise<number[]> {
    const rows = await app.dataSource
      .getRepository(TestEffect)
      .findBy({ eventId: In([...eventIds]), handler });
    return eventIds.map((id) => rows.filter((row) => row.eventId === id).length);
  }

  async function ledger(eventIds: readonly string[]): Promise<WebhookHandlerRunEntity[]> {
    const rows = await Promise.all(eventIds.map((id) => liveEvent(app.dataSource, id)));
    return app.dataSource
      .getRepository(WebhookHandlerRunEntity)
      .findBy({ eventId: In(rows.map((row) => row!.id)) });
  }

  async function allProcessed(eventIds: readonly string[]): Promise<boolean> {
    const rows = await Promise.all(eventIds.map((id) => liveEvent(app.dataSource, id)));
    return rows.every((row) => row?.status === 'processed');
  }

  const once = Array.from({ length: EVENTS }, () => 1);
  const never = Array.from({ length: EVENTS }, () => 0);

  it('killed before the batch commits: nothing of it counts, and the next worker runs each handler once', async () => {
    const ids = await recorded();
    const killed = await worker('before-commit');
    const [when, handler, runs] = await killed.printed('froze');
    expect([when, handler, Number(runs)]).toEqual(['before-commit', 'first', EVENTS]);
    await killed.kill();
    expect(await effects(ids, 'first')).toEqual(never);
    expect(await ledger(ids)).toEqual([]);

    await worker('none');
    await eventually(() => allProcessed(ids), 20_000);
    expect(await effects(ids, 'first')).toEqual(once);
    expect(await effects(ids, 'second')).toEqual(once);
    expect(await ledger(ids)).toHaveLength(EVENTS * 2);
  });

  it('killed right after the batch commits: the batch counts, and the next worker runs only the handler after it', async () => {
    const ids = await recorded();
    const killed = await worker('after-commit');
    const [when, , runs] = await killed.printed('froze');
    expect([when, Number(runs)]).toEqual(['after-commit', EVENTS]);
    await killed.kill();
    expect(await effects(ids, 'first')).toEqual(once);
    expect(await effects(ids, 'second')).toEqual(never);
    const committed = await ledger(ids);
    expect(committed.map((run) => run.handlerKey)).toEqual(
      Array.from({ length: EVENTS }, () => 'first'),
    );

    await worker('none');
    await eventually(() => allProcessed(ids), 20_000);
    expect(await effects(ids, 'first')).toEqual(once);
    expect(await effects(ids, 'second')).toEqual(once);
    expect(await ledger(ids)).toHaveLength(EVENTS * 2);
  });
});
