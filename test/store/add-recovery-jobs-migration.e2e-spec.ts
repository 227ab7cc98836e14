import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import {
  stripeEndpoint,
  WebhookAdmin,
  webhookEntities,
  webhooksMigrations,
} from 'nestjs-payment-webhooks';
import { STATUSES_OF_0_1 } from '../support/inbox-0.1';
import {
  ACTOR_OF_1_0,
  createInboxOf10,
  deadEventsOf,
  InboxRowsOf10,
  inboxRowsOf10,
  REPLAYED_BEFORE_UPGRADE,
  REPLAYS_OF_1_0,
} from '../support/inbox-1.0';
import { AddRecoveryJobs1765000000000 } from '../support/internals';
import { appliedMigrations, undoMigrationsAfter } from '../support/migrations';
import { createTestDatabase, TestDatabase } from '../support/postgres';
import { countEffects, Database, eventually, startTestApp } from '../support/test-app';

/**
 * The upgrade from 1.0 (`AddRecoveryJobs1765000000000`) on an inbox of 1.0 with events in every
 * status, handler runs, history of every kind 1.0 writes, a pause and replays in every status:
 * no row changes, every replay is a job of kind `replay`, the new kinds and the `failed` status
 * are taken and nothing else is; a replay running before the upgrade is carried on from its
 * cursor and finishes; and the migration reverts, keeping every row 1.0 can read.
 */

const SECRET = 'whsec_recovery_upgrade_test';
const HANDLER = 'TestPaymentHandlers.onPayment';
/** Ten events of each status. */
const EVENTS = STATUSES_OF_0_1.length * 10;
const START = new Date(Date.now() - 2 * 3_600_000);

const dead = () => deadEventsOf(EVENTS, START, [HANDLER]);

/** A replay's row without the columns the upgrade adds, to compare with the row as 1.0 had it. */
const ADDED_COLUMNS = ['kind', 'page_cursor', 'endpoint', 'tenant', 'handler', 'ran', 'failed'];
const asOf10 = (row: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(row).filter(([column]) => !ADDED_COLUMNS.includes(column)));

describe.each<Database>(['sqlite', 'postgres'])('the upgrade from 1.0 on %s', (database) => {
  let db: TestDatabase | undefined;
  let sqliteFile: string;
  let target: { databaseUrl: string } | { sqliteFile: string };
  /** Every row as 1.0 left it. */
  let before: InboxRowsOf10;

  const dataSourceOptions = () =>
    db
      ? { type: 'postgres' as const, url: db.url }
      : { type: 'better-sqlite3' as const, database: sqliteFile };
  /** The n-th placeholder of the database's SQL. */
  const p = (n: number) => (db ? `$${n}` : '?');
  const now = () => (db ? new Date() : new Date().toISOString().replace('T', ' ').replace('Z', ''));

  /** Adds a history row of `kind` to the first dead event. */
  const addHistory = (source: DataSource, id: string, kind: string) =>
    source.query(
      'INSERT INTO webhook_history (id, event_id, kind, at, outcome, actor) ' +
        `VALUES (${p(1)}, ${p(2)}, ${p(3)}, ${p(4)}, 'dead', 'ops@1.1')`,
      [id, dead()[0].id, kind, now()],
    );
  /** Adds a job of `kind` and `status`. */
  const addJob = (source: DataSource, id: string, kind: string, status: string) =>
    source.query(
      'INSERT INTO webhook_replays (id, filter, status, kind, total, created_at, updated_at) ' +
        `VALUES (${p(1)}, '{}', ${p(2)}, ${p(3)}, 0, ${p(4)}, ${p(5)})`,
      [id, status, kind, now(), now()],
    );
  /** The data source of the package's migrations up to this upgrade, the upgrade run. */
  const migrated = () =>
    new DataSource({
      ...dataSourceOptions(),
      entities: webhookEntities,
      migrations: webhooksMigrations.slice(
        0,
        webhooksMigrations.indexOf(AddRecoveryJobs1765000000000) + 1,
      ),
      migrationsRun: true,
    }).initialize();

  const startApp = (options: { migrations?: boolean } = {}) =>
    startTestApp({
      platform: 'express',
      database,
      ...target,
      webhooks: {
        endpoints: [stripeEndpoint({ name: 'stripe', secret: SECRET })],
        dispatch: {
          pollIntervalMs: 20,
          retry: { maxAttempts: 6, baseDelayMs: 10, maxDelayMs: 20 },
        },
      },
      migrations: options.migrations ?? true,
    });

  beforeEach(async () => {
    db = database === 'postgres' ? await createTestDatabase() : undefined;
    sqliteFile = join(mkdtempSync(join(tmpdir(), 'pw-recovery-')), 'inbox.sqlite');
    target = db ? { databaseUrl: db.url } : { sqliteFile };
    await createInboxOf10(dataSourceOptions(), {
      events: EVENTS,
      start: START,
      handlerKeys: [HANDLER],
      byHand: [dead()[0].id],
    });
    const of10 = await new DataSource(dataSourceOptions()).initialize();
    try {
      before = await inboxRowsOf10(of10);
    } finally {
      await of10.destroy();
    }
  });

  afterEach(async () => {
    await db?.drop();
  });

  it('keeps every row, makes every replay a job of kind replay, and takes the new kinds only', async () => {
    expect(new Set(before.history.map((row) => row.kind))).toEqual(
      new Set(['attempt', 'replay', 'settle']),
    );
    expect(before.replays.map((row) => row.status).sort()).toEqual(['canceled', 'done', 'running']);
    expect(before.pauses).toHaveLength(1);

    // Not migrated yet: startup is refused, naming the columns and the migrations.
    await expect(startApp({ migrations: false })).rejects.toThrow(
      /"webhook_replays": column "kind" is missing.*webhooksMigrations/s,
    );
    const source = await migrated();
    try {
      expect(await appliedMigrations(source)).toContain(AddRecoveryJobs1765000000000.name);
      const after = await inboxRowsOf10(source);
      expect({ ...after, replays: after.replays.map(asOf10) }).toEqual(before);
      expect(
        after.replays.map((row) => [
          row.kind,
          row.page_cursor,
          row.endpoint,
          row.tenant,
          row.handler,
          Number(row.ran),
          Number(row.failed),
        ]),
      ).toEqual(before.replays.map(() => ['replay', null, null, null, null, 0, 0]));

      // What 1.1 writes goes in: recoveries, backfills, and a job that failed.
      await addHistory(source, '40000000-0000-4000-8000-000000000001', 'recover');
      await addHistory(source, '40000000-0000-4000-8000-000000000002', 'backfill');
      await addJob(source, '40000000-0000-4000-8000-000000000003', 'recover', 'failed');
      await addJob(source, '40000000-0000-4000-8000-000000000004', 'backfill', 'active');
      // And nothing else does: the checks are still there.
      await expect(
        addHistory(source, '40000000-0000-4000-8000-000000000005', 'rerun'),
      ).rejects.toThrow(/check constraint/i);
      await expect(
        addJob(source, '40000000-0000-4000-8000-000000000006', 'rerun', 'running'),
      ).rejects.toThrow(/check constraint/i);
      await expect(
        addJob(source, '40000000-0000-4000-8000-000000000007', 'recover', 'lost'),
      ).rejects.toThrow(/check constraint/i);
    } finally {
      await source.destroy();
    }
  });

  it('then carries on the replay 1.0 was running, from its cursor, until it is done', async () => {
    await (await migrated()).destroy();
    const app = await startApp();
    try {
      const admin = app.app.get(WebhookAdmin);
      await eventually(
        async () => (await admin.replayJob(REPLAYS_OF_1_0.running))?.status === 'done',
        15_000,
      );
      expect(await admin.replayJob(REPLAYS_OF_1_0.running)).toMatchObject({
        total: dead().length,
        replayed: dead().length,
        actor: ACTOR_OF_1_0,
        lockedBy: null,
      });
      expect((await admin.replayJobs()).map((job) => [job.id, job.status]).sort()).toEqual([
        [REPLAYS_OF_1_0.running, 'done'],
        [REPLAYS_OF_1_0.done, 'done'],
        [REPLAYS_OF_1_0.canceled, 'canceled'],
      ]);

      // The events after its cursor are put back once each, and run: their handler had
      // finished before, so it does not run again.
      const putBack = dead().slice(REPLAYED_BEFORE_UPGRADE);
      await eventually(async () => {
        const events = await Promise.all(putBack.map((event) => admin.show(event.id)));
        return events.every((details) => details?.event.status === 'processed');
      });
      for (const event of putBack) {
        const replays = (await admin.show(event.id))!.history.filter(
          (entry) => entry.kind === 'replay',
        );
        expect(replays).toEqual([
          expect.objectContaining({ actor: ACTOR_OF_1_0, outcome: 'dead' }),
        ]);
        expect(await countEffects(app, event.eventId)).toBe(0);
      }
      // Those it put back before the upgrade are not put back again.
      for (const event of dead().slice(0, REPLAYED_BEFORE_UPGRADE)) {
        const { event: stored, history } = (await admin.show(event.id))!;
        expect(stored.status).toBe('dead');
        expect(history.filter((entry) => entry.kind === 'replay')).toHaveLength(1);
      }
    } finally {
      await app.close();
    }
  });

  it("can be reverted: every row 1.0 reads stays, recoveries and backfills go, and 1.0's checks are back", async () => {
    const source = await migrated();
    try {
      const failedReplay = '40000000-0000-4000-8000-000000000008';
      await addHistory(source, '40000000-0000-4000-8000-000000000001', 'recover');
      await addHistory(source, '40000000-0000-4000-8000-000000000002', 'backfill');
      await addJob(source, '40000000-0000-4000-8000-000000000003', 'recover', 'failed');
      await addJob(source, '40000000-0000-4000-8000-000000000004', 'backfill', 'active');
      await addJob(source, failedReplay, 'replay', 'failed');

      await undoMigrationsAfter(source, AddRecoveryJobs1765000000000.name);
      await source.undoLastMigration();
      expect(await appliedMigrations(source)).not.toContain(AddRecoveryJobs1765000000000.name);
      const after = await inboxRowsOf10(source);
      // A replay that failed is one 1.0 canceled; the rest is as 1.0 left it, row for row.
      expect(after.replays.find((row) => row.id === failedReplay)).toMatchObject({
        status: 'canceled',
      });
      expect({ ...after, replays: after.replays.filter((row) => row.id !== failedReplay) }).toEqual(
        before,
      );
      await expect(source.query('SELECT kind FROM webhook_replays')).rejects.toThrow();
      await expect(
        addHistory(source, '40000000-0000-4000-8000-000000000009', 'recover'),
      ).rejects.toThrow(/check constraint/i);
      await expect(
        source.query(
          'INSERT INTO webhook_replays (id, filter, status, total, created_at, updated_at) ' +
            `VALUES ('40000000-0000-4000-8000-000000000010', '{}', 'failed', 0, ${p(1)}, ${p(2)})`,
          [now(), now()],
        ),
      ).rejects.toThrow(/check constraint/i);

      // And it upgrades again.
      await source.runMigrations();
      expect(await appliedMigrations(source)).toContain(AddRecoveryJobs1765000000000.name);
    } finally {
      await source.destroy();
    }
  });
});
