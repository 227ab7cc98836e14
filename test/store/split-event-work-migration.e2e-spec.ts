import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import {
  InboxQueries,
  stripeEndpoint,
  webhookEntities,
  webhooksMigrations,
} from 'nestjs-payment-webhooks';
import { WebhookTestClient } from 'nestjs-payment-webhooks/testing';
import {
  EventOf01,
  eventOf01,
  MIGRATIONS_OF_0_1,
  seedInboxOf01,
  STATUSES_OF_0_1,
} from '../support/inbox-0.1';
import { SplitEventWork1764700000000 } from '../support/internals';
import { createTestDatabase, TestDatabase } from '../support/postgres';
import { stripeSignature } from '../support/stripe-event';
import { Database, eventually, startTestApp, TestApp } from '../support/test-app';
import { undoMigrationsAfter } from '../support/migrations';

const SECRET = 'whsec_upgrade_test';
const HANDLER = 'TestPaymentHandlers.onPayment';
/** Ten events of each status of 0.1. */
const EVENTS = STATUSES_OF_0_1.length * 10;
const START = new Date(Date.now() - 2 * 3_600_000);

const seeded = (): EventOf01[] =>
  Array.from({ length: EVENTS }, (_, n) => eventOf01(n, START, [HANDLER]));

/** An epoch-millisecond time of a date column as either database returns it. */
const ms = (value: unknown): number | null =>
  value === null || value === undefined
    ? null
    : value instanceof Date
      ? value.getTime()
      : Date.parse(
          `${String(value).replace(' ', 'T')}${/Z|[+-]\d\d:?\d\d$/.test(String(value)) ? '' : 'Z'}`,
        );

describe.each<Database>(['sqlite', 'postgres'])('the upgrade from 0.1 on %s', (database) => {
  let db: TestDatabase | undefined;
  let sqliteFile: string;
  let target: { databaseUrl: string } | { sqliteFile: string };

  const dataSourceOptions = () =>
    db
      ? { type: 'postgres' as const, url: db.url }
      : { type: 'better-sqlite3' as const, database: sqliteFile };

  beforeEach(async () => {
    db = database === 'postgres' ? await createTestDatabase() : undefined;
    sqliteFile = join(mkdtempSync(join(tmpdir(), 'pw-upgrade-')), 'inbox.sqlite');
    target = db ? { databaseUrl: db.url } : { sqliteFile };
    const before = await new DataSource({
      ...dataSourceOptions(),
      migrations: MIGRATIONS_OF_0_1,
      migrationsRun: true,
    }).initialize();
    await seedInboxOf01(before, { to: EVENTS, start: START, handlerKeys: [HANDLER], batch: 25 });
    await before.destroy();
  });

  afterEach(async () => {
    await db?.drop();
  });

  const webhooks = (enabled: boolean) => ({
    endpoints: [stripeEndpoint({ name: 'stripe', secret: SECRET })],
    dispatch: { enabled, pollIntervalMs: 50 },
  });

  it('moves every row: each event kept, its queue state on its work row, the ledger whole', async () => {
    // Not migrated yet: startup is refused, naming the table and the migrations.
    await expect(
      startTestApp({
        platform: 'express',
        database,
        ...target,
        webhooks: webhooks(false),
        migrations: false,
      }),
    ).rejects.toThrow(/"webhook_work" is missing.*webhooksMigrations/);

    const app = await startTestApp({
      platform: 'express',
      database,
      ...target,
      webhooks: webhooks(false),
    });
    try {
      const events: Record<string, unknown>[] = await app.dataSource.query(
        'SELECT * FROM webhook_events ORDER BY event_id',
      );
      const work: Record<string, unknown>[] = await app.dataSource.query(
        'SELECT * FROM webhook_work',
      );
      const ledger: Record<string, unknown>[] = await app.dataSource.query(
        'SELECT * FROM webhook_handler_runs',
      );
      // NOTE: 0.1 had no webhook_transmissions; the upgrade creates it, empty.
      expect(await app.dataSource.query('SELECT * FROM webhook_transmissions')).toEqual([]);
      const expected = seeded();
      expect(events).toHaveLength(EVENTS);
      const byEventId = new Map(events.map((row) => [row.event_id as string, row]));
      const workById = new Map(work.map((row) => [row.event_id as string, row]));
      for (const before of expected) {
        const row = byEventId.get(before.eventId)!;
        expect({
          id: row.id,
          payment_ref: row.payment_ref,
          raw_body: row.raw_body,
          attempts: Number(row.attempts),
          next: ms(row.next_attempt_at),
          last_error: row.last_error,
          processed: ms(row.processed_at),
          delivery_count: Number(row.delivery_count),
          outcome: row.outcome,
          status: row.status,
        }).toEqual({
          id: before.id,
          payment_ref: before.paymentRef,
          raw_body: before.rawBody,
          attempts: before.attempts,
          next: before.nextAttemptAt?.getTime() ?? null,
          last_error: before.lastError,
          processed: before.processedAt?.getTime() ?? null,
          delivery_count: before.deliveryCount,
          outcome: before.outcome,
          // NOTE: a running event's own row says where it stood before its run began.
          status: before.status === 'processing' ? 'pending' : before.status,
        });
        expect(row).not.toHaveProperty('locked_by');
        const queued = workById.get(before.id);
        if (before.status === 'processed' || before.status === 'ignored') {
          expect(queued).toBeUndefined();
        } else {
          expect({
            status: queued?.status,
            attempts: Number(queued?.attempts),
            next: ms(queued?.next_attempt_at),
            locked_by: queued?.locked_by,
            locked_until: ms(queued?.locked_until),
          }).toEqual({
            status: before.status,
            attempts: before.attempts,
            next: before.nextAttemptAt?.getTime() ?? null,
            locked_by: before.lockedBy,
            locked_until: before.lockedUntil?.getTime() ?? null,
          });
        }
      }
      expect(work).toHaveLength((EVENTS / STATUSES_OF_0_1.length) * 4);
      expect(
        ledger
          .map((row) => `${row.event_id} ${row.handler_key} ${row.attempt} ${row.outcome}`)
          .sort(),
      ).toEqual(
        expected
          .flatMap((event) =>
            event.ledger.map(
              (key) => `${event.id} ${key} 1 ${event.status === 'processed' ? 'applied' : null}`,
            ),
          )
          .sort(),
      );
      expect(ledger[0]).not.toHaveProperty('id');

      // Every status counts as it did.
      const stats = await app.app.get<InboxQueries>(InboxQueries).stats();
      expect(Object.fromEntries(stats.counts.map((row) => [row.status, row.count]))).toEqual(
        Object.fromEntries(STATUSES_OF_0_1.map((status) => [status, EVENTS / 6])),
      );

      // A re-delivery of an event stored before the upgrade is still a duplicate of it.
      const client = new WebhookTestClient(app.url);
      const processed = expected.find((event) => event.status === 'processed')!;
      const answer = await client.send('stripe', {
        provider: 'stripe',
        method: 'POST',
        body: processed.rawBody,
        headers: {
          'content-type': 'application/json',
          ...stripeSignature(processed.rawBody, SECRET),
        },
      });
      expect(answer.status).toBe(200);
      const [again] = await app.dataSource.query(
        `SELECT COUNT(*) AS n, MAX(delivery_count) AS deliveries FROM webhook_events WHERE event_id = ${db ? '$1' : '?'}`,
        [processed.eventId],
      );
      expect(Number(again.n)).toBe(1);
      expect(Number(again.deliveries)).toBe(processed.deliveryCount + 1);
    } finally {
      await app.close();
    }
  });

  it('then runs what was waiting exactly once, leaves what was settled alone, and replays a dead one', async () => {
    const app: TestApp = await startTestApp({
      platform: 'express',
      database,
      ...target,
      webhooks: webhooks(true),
    });
    try {
      const expected = seeded();
      const queries = app.app.get<InboxQueries>(InboxQueries);
      const count = async (status: string) =>
        (await queries.stats()).counts
          .filter((row) => row.status === status)
          .reduce((sum, row) => sum + row.count, 0);
      // Pending, running (its worker gone, its lease long past) and retrying events are run.
      await eventually(async () => (await count('processed')) === (EVENTS / 6) * 4, 20_000);
      expect(await count('dead')).toBe(EVENTS / 6);
      expect(await count('ignored')).toBe(EVENTS / 6);
      // One effect per event whose handler had not finished; the retrying ones' had (ledger).
      const effects = app.control.calls.map((call) => call.eventId).sort();
      expect(effects).toEqual(
        expected
          .filter((event) => event.status === 'pending' || event.status === 'processing')
          .map((event) => event.eventId)
          .sort(),
      );
      const dead = expected.find((event) => event.status === 'dead')!;
      expect(await queries.replay([dead.id])).toBe(1);
      await eventually(async () => (await queries.find(dead.id))?.event.status === 'processed');
      // Its handler had finished before it died: the ledger keeps it from running twice.
      expect(app.control.calls.filter((call) => call.eventId === dead.eventId)).toEqual([]);
      expect(
        await app.dataSource.query("SELECT * FROM webhook_work WHERE status <> 'dead'"),
      ).toEqual([]);
    } finally {
      await app.close();
    }
  });

  it('can be reverted: the queue state goes back onto the events', async () => {
    const source = await new DataSource({
      ...dataSourceOptions(),
      entities: webhookEntities,
      migrations: webhooksMigrations,
      migrationsRun: true,
    }).initialize();
    try {
      await undoMigrationsAfter(source, SplitEventWork1764700000000.name);
      await source.undoLastMigration();
      const migrations: { name: string }[] = await source.query('SELECT name FROM migrations');
      expect(migrations.map((row) => row.name)).not.toContain(SplitEventWork1764700000000.name);
      const events: Record<string, unknown>[] = await source.query('SELECT * FROM webhook_events');
      const byEventId = new Map(events.map((row) => [row.event_id as string, row]));
      for (const before of seeded()) {
        const row = byEventId.get(before.eventId)!;
        expect({
          status: row.status,
          attempts: Number(row.attempts),
          locked_by: row.locked_by,
          locked_until: ms(row.locked_until),
          next: ms(row.next_attempt_at),
        }).toEqual({
          status: before.status,
          attempts: before.attempts,
          locked_by: before.lockedBy,
          locked_until: before.lockedUntil?.getTime() ?? null,
          next: before.nextAttemptAt?.getTime() ?? null,
        });
      }
      const [ledger] = await source.query(
        'SELECT COUNT(*) AS n, COUNT(DISTINCT id) AS ids FROM webhook_handler_runs',
      );
      expect(Number(ledger.n)).toBe(seeded().reduce((sum, event) => sum + event.ledger.length, 0));
      expect(Number(ledger.ids)).toBe(Number(ledger.n));
      // And forward again.
      await source.runMigrations();
      const [work] = await source.query('SELECT COUNT(*) AS n FROM webhook_work');
      expect(Number(work.n)).toBe((EVENTS / 6) * 4);
    } finally {
      await source.destroy();
    }
  });
});
