import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { stripeEndpoint, webhookEntities, webhooksMigrations } from 'nestjs-payment-webhooks';
import { eventOf01, STATUSES_OF_0_1 } from '../support/inbox-0.1';
import { InboxRows, inboxRows } from '../support/inbox-0.2';
import { createInboxOf10, StoredNotificationOf10 } from '../support/inbox-1.0';
import { AddEventCopies1765100000000 } from '../support/internals';
import { undoMigrationsAfter } from '../support/migrations';
import { createTestDatabase, TestDatabase } from '../support/postgres';
import { signedStripeNotification } from '../support/stripe-event';
import { Database, startTestApp } from '../support/test-app';

/**
 * The upgrade from 1.0 (`AddEventCopies1765100000000`) on an inbox of 1.0 with snapshot events
 * in every status and event notifications stored beside them, two of them copies of stored
 * snapshot events: it adds `same_event` and its index and changes no row (every key null, as
 * which endpoints are paired is configuration); a copy delivered after the upgrade, of an
 * event stored before it, is an event of its own; and it reverts.
 */

const SECRET = 'whsec_copies_upgrade_test';
const THIN_SECRET = 'whsec_copies_upgrade_thin';
const HANDLER = 'TestPaymentHandlers.onPayment';
/** Ten events of each status. */
const EVENTS = STATUSES_OF_0_1.length * 10;
const START = new Date(Date.now() - 2 * 3_600_000);
const seededId = (n: number) => eventOf01(n, START, [HANDLER]).eventId;

const NOTIFICATIONS: StoredNotificationOf10[] = [
  // The copy of a snapshot event not stored: the notification came alone.
  { eventId: 'evt_thin_alone', snapshotEvent: 'evt_snapshot_later', receivedAs: seededId(3) },
  // A notification of a v2 resource: no snapshot event.
  { eventId: 'evt_thin_v2', receivedAs: seededId(4) },
  // Both copies stored before the upgrade, the snapshot event first…
  { eventId: 'evt_thin_second', snapshotEvent: seededId(0), receivedAs: seededId(5) },
  // …and the notification first.
  { eventId: 'evt_thin_first', snapshotEvent: seededId(9), receivedAs: seededId(1) },
];

/** The index the migration adds. */
const INDEX = 'uq_webhook_events_tenant_same_event';

/** A row without the new column, to compare with the row as 1.0 had it. */
const withoutCopies = (row: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(row).filter(([column]) => column !== 'same_event'));

describe.each<Database>(['sqlite', 'postgres'])('the upgrade from 1.0 on %s', (database) => {
  let db: TestDatabase | undefined;
  let sqliteFile: string;
  let target: { databaseUrl: string } | { sqliteFile: string };
  /** Every row as 1.0 left it. */
  let before: InboxRows;

  const dataSourceOptions = () =>
    db
      ? { type: 'postgres' as const, url: db.url }
      : { type: 'better-sqlite3' as const, database: sqliteFile };
  const p = (n: number) => (db ? `$${n}` : '?');

  beforeEach(async () => {
    db = database === 'postgres' ? await createTestDatabase() : undefined;
    sqliteFile = join(mkdtempSync(join(tmpdir(), 'pw-copies-')), 'inbox.sqlite');
    target = db ? { databaseUrl: db.url } : { sqliteFile };
    await createInboxOf10(dataSourceOptions(), {
      events: EVENTS,
      start: START,
      handlerKeys: [HANDLER],
      notifications: NOTIFICATIONS,
    });
    const of10 = await new DataSource(dataSourceOptions()).initialize();
    try {
      before = await inboxRows(of10);
    } finally {
      await of10.destroy();
    }
  });

  afterEach(async () => {
    await db?.drop();
  });

  const startApp = (migrations = true) =>
    startTestApp({
      platform: 'express',
      database,
      ...target,
      // NOTE: no workers, so every row stays as the migration left it.
      webhooks: {
        endpoints: [
          stripeEndpoint({ name: 'stripe', secret: SECRET }),
          stripeEndpoint({ name: 'stripe-thin', secret: THIN_SECRET, snapshotEndpoint: 'stripe' }),
        ],
        dispatch: { enabled: false },
      },
      migrations,
    });

  /** The stored keys that are set. */
  const keys = async (source: DataSource) =>
    (await source.query(
      'SELECT event_id, same_event FROM webhook_events WHERE same_event IS NOT NULL',
    )) as { event_id: string; same_event: string }[];

  /** Whether the index is in the database. */
  const indexed = async (source: DataSource) =>
    (
      (await source.query(
        db
          ? `SELECT indexname FROM pg_indexes WHERE indexname = ${p(1)}`
          : `SELECT name FROM sqlite_master WHERE type = 'index' AND name = ${p(1)}`,
        [INDEX],
      )) as unknown[]
    ).length === 1;

  it('adds the column and its index, and keeps every row as it was', async () => {
    // Not migrated yet: startup is refused, naming the column, the index and the migrations.
    await expect(startApp(false)).rejects.toThrow(
      /"webhook_events": column "same_event" is missing.*"uq_webhook_events_tenant_same_event" is missing.*webhooksMigrations/s,
    );
    expect(before.events).toHaveLength(EVENTS + NOTIFICATIONS.length);

    // NOTE: migrated without an app: its replays in the background would move the dead events.
    const source = await new DataSource({
      ...dataSourceOptions(),
      entities: webhookEntities,
      migrations: webhooksMigrations,
      migrationsRun: true,
    }).initialize();
    try {
      const migrations: { name: string }[] = await source.query('SELECT name FROM migrations');
      expect(migrations.map((row) => row.name)).toContain(AddEventCopies1765100000000.name);
      const after = await inboxRows(source);
      expect(after.events.map(withoutCopies)).toEqual(before.events);
      expect(after.events.every((row) => row.same_event === null)).toBe(true);
      expect(after.work).toEqual(before.work);
      expect(after.ledger).toEqual(before.ledger);
      expect(await indexed(source)).toBe(true);
    } finally {
      await source.destroy();
    }
  });

  it('then stores a copy of an event stored before it as an event of its own', async () => {
    const app = await startApp();
    try {
      const count = async () =>
        Number(
          (
            (await app.dataSource.query('SELECT COUNT(*) AS n FROM webhook_events')) as {
              n: number | string;
            }[]
          )[0].n,
        );
      const deliveries = async (eventId: string) =>
        Number(
          (
            (await app.dataSource.query(
              `SELECT delivery_count FROM webhook_events WHERE event_id = ${p(1)}`,
              [eventId],
            )) as { delivery_count: number | string }[]
          )[0].delivery_count,
        );
      const rows = await count();
      // NOTE: one of the snapshot events no notification stored before names.
      const processed = Array.from({ length: EVENTS }, (_, n) => eventOf01(n, START, [HANDLER]))
        .slice(10)
        .find((event) => event.status === 'processed')!;
      const was = await deliveries(processed.eventId);

      // The notification of a snapshot event stored before the upgrade, at the paired endpoint.
      const thin = signedStripeNotification(THIN_SECRET, { snapshot_event: processed.eventId });
      const answer = await fetch(`${app.url}/webhooks/stripe-thin`, {
        method: 'POST',
        body: thin.body,
        headers: { 'content-type': 'application/json', ...thin.headers },
      });
      expect(answer.status).toBe(200);
      expect(await deliveries(processed.eventId)).toBe(was);
      expect(await count()).toBe(rows + 1);
      expect(await keys(app.dataSource)).toEqual([
        { event_id: JSON.parse(thin.body).id, same_event: `stripe:${processed.eventId}` },
      ]);
    } finally {
      await app.close();
    }
  });

  it('can be reverted to the rows of 1.0, and run again', async () => {
    const source = await new DataSource({
      ...dataSourceOptions(),
      entities: webhookEntities,
      migrations: webhooksMigrations,
      migrationsRun: true,
    }).initialize();
    try {
      await undoMigrationsAfter(source, AddEventCopies1765100000000.name);
      await source.undoLastMigration();
      expect(await indexed(source)).toBe(false);
      expect(await inboxRows(source)).toEqual(before);
      await source.runMigrations();
      expect(await indexed(source)).toBe(true);
      expect(await keys(source)).toEqual([]);
    } finally {
      await source.destroy();
    }
  });
});
