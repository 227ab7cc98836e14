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
import { EventOf01, eventOf01, STATUSES_OF_0_1 } from '../support/inbox-0.1';
import { InboxRows, inboxRows } from '../support/inbox-0.2';
import { createInboxOf03 } from '../support/inbox-0.3';
import { AddEventHistory1764900000000 } from '../support/internals';
import { appliedMigrations, undoMigrationsAfter } from '../support/migrations';
import { createTestDatabase, TestDatabase } from '../support/postgres';
import { countEffects, Database, eventually, startTestApp } from '../support/test-app';

/**
 * The upgrade from 0.3 (`AddEventHistory1764900000000`) on an inbox of 0.3 with events in every
 * status: no row of the inbox, its work rows or the ledger changes; each dead or retrying event
 * gets its failure into its history, an event settled by hand its settlement; the failures
 * group, replay and run as failures recorded after the upgrade do; and the migration reverts.
 */

const SECRET = 'whsec_history_upgrade_test';
const HANDLER = 'TestPaymentHandlers.onPayment';
/** Ten events of each status. */
const EVENTS = STATUSES_OF_0_1.length * 10;
const START = new Date(Date.now() - 2 * 3_600_000);

/** A row without the key of its copies (`AddEventCopies1765100000000`). */
const withoutCopies = (row: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(row).filter(([column]) => column !== 'same_event'));

const seeded = (): EventOf01[] =>
  Array.from({ length: EVENTS }, (_, n) => eventOf01(n, START, [HANDLER]));
/** The dead event 0.3 settled by hand. */
const byHand = () => seeded().filter((event) => event.status === 'dead')[0];
/** The dead and retrying events that failed in their handlers. */
const failed = () =>
  seeded().filter(
    (event) => (event.status === 'dead' || event.status === 'retrying') && event.id !== byHand().id,
  );

describe.each<Database>(['sqlite', 'postgres'])('the upgrade from 0.3 on %s', (database) => {
  let db: TestDatabase | undefined;
  let sqliteFile: string;
  let target: { databaseUrl: string } | { sqliteFile: string };
  /** Every row as 0.3 left it. */
  let before: InboxRows;

  const dataSourceOptions = () =>
    db
      ? { type: 'postgres' as const, url: db.url }
      : { type: 'better-sqlite3' as const, database: sqliteFile };

  beforeEach(async () => {
    db = database === 'postgres' ? await createTestDatabase() : undefined;
    sqliteFile = join(mkdtempSync(join(tmpdir(), 'pw-history-')), 'inbox.sqlite');
    target = db ? { databaseUrl: db.url } : { sqliteFile };
    await createInboxOf03(dataSourceOptions(), {
      events: EVENTS,
      start: START,
      handlerKeys: [HANDLER],
      byHand: [byHand().id],
    });
    const of03 = await new DataSource(dataSourceOptions()).initialize();
    try {
      before = await inboxRows(of03);
    } finally {
      await of03.destroy();
    }
  });

  afterEach(async () => {
    await db?.drop();
  });

  const startApp = (options: { migrations?: boolean; dispatch?: boolean } = {}) =>
    startTestApp({
      platform: 'express',
      database,
      ...target,
      webhooks: {
        endpoints: [stripeEndpoint({ name: 'stripe', secret: SECRET })],
        dispatch: {
          enabled: options.dispatch ?? false,
          pollIntervalMs: 20,
          retry: { maxAttempts: 6, baseDelayMs: 10, maxDelayMs: 20 },
        },
      },
      migrations: options.migrations ?? true,
    });

  it('keeps every row, and gives each failed event its failure and the settled one its settlement', async () => {
    await expect(startApp({ migrations: false })).rejects.toThrow(
      /table "webhook_history" is missing.*table "webhook_pauses" is missing.*webhooksMigrations/s,
    );
    const app = await startApp();
    try {
      expect(await appliedMigrations(app.dataSource)).toContain(AddEventHistory1764900000000.name);
      // NOTE: the key of each event's copies is a later migration's, and compared there.
      const after = await inboxRows(app.dataSource);
      expect({ ...after, events: after.events.map(withoutCopies) }).toEqual(before);

      const admin = app.app.get(WebhookAdmin);
      for (const event of failed()) {
        const { history } = (await admin.show(event.id))!;
        expect(history).toEqual([
          expect.objectContaining({
            kind: 'attempt',
            attempt: event.attempts,
            handlerKey: null,
            outcome: event.status,
            error: event.lastError,
            fingerprint: 'before-history',
            at: event.receivedAt,
          }),
        ]);
      }
      expect((await admin.show(byHand().id))!.history).toEqual([
        expect.objectContaining({
          kind: 'settle',
          outcome: 'dead',
          error: null,
          detail: 'order cancelled in the ERP',
        }),
      ]);
      for (const event of seeded().filter((e) => e.status !== 'dead' && e.status !== 'retrying')) {
        expect((await admin.show(event.id))!.history).toEqual([]);
      }
      expect(await admin.pauses()).toEqual([]);
      expect(await admin.replayJobs()).toEqual([]);

      // The failures recorded before the upgrade are one group, which a replay takes whole.
      const groups = await admin.failureGroups();
      expect(groups).toEqual([
        expect.objectContaining({
          endpoint: 'stripe',
          handlerKey: null,
          fingerprint: 'before-history',
          count: failed().length,
          dead: failed().filter((event) => event.status === 'dead').length,
        }),
      ]);
      expect(
        await admin.replay({
          fingerprint: 'before-history',
          status: ['dead', 'retrying'],
          dryRun: true,
        }),
      ).toMatchObject({ replayed: 0, wouldReplay: failed().length });
    } finally {
      await app.close();
    }
  });

  it('then replays the failures of 0.3: each handler runs once, and the history reads in order', async () => {
    const app = await startApp({ dispatch: true });
    try {
      const admin = app.app.get(WebhookAdmin);
      // NOTE: the retrying events fall due and run on their own; the dead ones wait for this.
      const report = await admin.replay({ fingerprint: 'before-history', actor: 'ops@upgrade' });
      expect(report).toEqual({ replayed: failed().filter((e) => e.status === 'dead').length });
      await eventually(async () => {
        const events = await Promise.all(failed().map((event) => admin.show(event.id)));
        return events.every((details) => details?.event.status === 'processed');
      });
      for (const event of failed()) {
        // Their handler finished before the upgrade: it is in the ledger and does not run again.
        expect(await countEffects(app, event.eventId)).toBe(0);
        const { history, handlerRuns } = (await admin.show(event.id))!;
        expect(history.map((entry) => [entry.kind, entry.actor])).toEqual(
          event.status === 'dead'
            ? [
                ['attempt', null],
                ['replay', 'ops@upgrade'],
              ]
            : [['attempt', null]],
        );
        expect(handlerRuns.map((run) => run.handlerKey)).toEqual([HANDLER]);
      }
      expect(await admin.failureGroups()).toEqual([]);
    } finally {
      await app.close();
    }
  });

  it('can be reverted: the history, the pauses and the replays go, every other row stays', async () => {
    const source = await new DataSource({
      ...dataSourceOptions(),
      entities: webhookEntities,
      migrations: webhooksMigrations,
      migrationsRun: true,
    }).initialize();
    try {
      await undoMigrationsAfter(source, AddEventHistory1764900000000.name);
      await source.undoLastMigration();
      expect(await appliedMigrations(source)).not.toContain(AddEventHistory1764900000000.name);
      expect(await inboxRows(source)).toEqual(before);
      await expect(source.query('SELECT 1 FROM webhook_history')).rejects.toThrow();
      await expect(source.query('SELECT 1 FROM webhook_pauses')).rejects.toThrow();
      await expect(source.query('SELECT 1 FROM webhook_replays')).rejects.toThrow();
      // And it upgrades again.
      await source.runMigrations();
      expect(await appliedMigrations(source)).toContain(AddEventHistory1764900000000.name);
    } finally {
      await source.destroy();
    }
  });
});
