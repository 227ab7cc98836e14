import Sqlite from 'better-sqlite3';
import { createHash, randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import {
  InboxQueries,
  stripeEndpoint,
  webhookEntities,
  webhooksMigrations,
  WebhookStore,
} from 'nestjs-payment-webhooks';
import { WebhookTestClient } from 'nestjs-payment-webhooks/testing';
import { EventOf01, eventOf01, STATUSES_OF_0_1 } from '../support/inbox-0.1';
import { createInboxOf02, INTAKE_OF_0_2, InboxRows, inboxRows } from '../support/inbox-0.2';
import { AddEventTenants1764800000000 } from '../support/internals';
import { createTestDatabase, TestDatabase } from '../support/postgres';
import { stripeSignature } from '../support/stripe-event';
import { Database, startTestApp } from '../support/test-app';
import { newWebhookEvent } from '../support/webhook-event';
import { undoMigrationsAfter } from '../support/migrations';

const SECRET = 'whsec_tenants_upgrade_test';
const HANDLER = 'TestPaymentHandlers.onPayment';
/** Ten events of each status. */
const EVENTS = STATUSES_OF_0_1.length * 10;
const START = new Date(Date.now() - 2 * 3_600_000);

const seeded = (): EventOf01[] =>
  Array.from({ length: EVENTS }, (_, n) => eventOf01(n, START, [HANDLER]));

/**
 * A row without its tenant (and the key of its copies, which a later migration adds), to
 * compare with the row as 0.2 had it.
 */
const withoutTenant = (row: Record<string, unknown>) =>
  Object.fromEntries(
    Object.entries(row).filter(([column]) => column !== 'tenant' && column !== 'same_event'),
  );

describe.each<Database>(['sqlite', 'postgres'])('the upgrade from 0.2 on %s', (database) => {
  let db: TestDatabase | undefined;
  let sqliteFile: string;
  let target: { databaseUrl: string } | { sqliteFile: string };
  /** Every row as 0.2 left it. */
  let before: InboxRows;

  const dataSourceOptions = () =>
    db
      ? { type: 'postgres' as const, url: db.url }
      : { type: 'better-sqlite3' as const, database: sqliteFile };
  /** The n-th placeholder of the database's SQL. */
  const p = (n: number) => (db ? `$${n}` : '?');

  /** Stores a copy of the event `eventId` of no tenant for `tenant`, with SQL of its own. */
  const copyForTenant = (source: DataSource, eventId: string, tenant: string) =>
    source.query(
      'INSERT INTO webhook_events (id, endpoint, tenant, provider, event_id, type, native_type, ' +
        'received_at, raw_body, body_sha256, headers, status) ' +
        `SELECT ${p(1)}, endpoint, ${p(2)}, provider, event_id, type, native_type, received_at, ` +
        `raw_body, body_sha256, headers, 'ignored' FROM webhook_events ` +
        `WHERE event_id = ${p(3)} AND tenant = ''`,
      [randomUUID(), tenant, eventId],
    );

  beforeEach(async () => {
    db = database === 'postgres' ? await createTestDatabase() : undefined;
    sqliteFile = join(mkdtempSync(join(tmpdir(), 'pw-tenants-')), 'inbox.sqlite');
    target = db ? { databaseUrl: db.url } : { sqliteFile };
    await createInboxOf02(dataSourceOptions(), {
      events: EVENTS,
      start: START,
      handlerKeys: [HANDLER],
    });
    const of02 = await new DataSource(dataSourceOptions()).initialize();
    try {
      before = await inboxRows(of02);
    } finally {
      await of02.destroy();
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
        endpoints: [stripeEndpoint({ name: 'stripe', secret: SECRET })],
        dispatch: { enabled: false },
      },
      migrations,
    });

  it('keeps every row as it was, each event of no tenant, and a re-delivery is still a duplicate', async () => {
    // Not migrated yet: startup is refused, naming the column, the key and the migrations.
    await expect(startApp(false)).rejects.toThrow(
      /"webhook_events": column "tenant" is missing.*"uq_webhook_events_endpoint_tenant_event" is missing.*webhooksMigrations/s,
    );
    expect(before.events).toHaveLength(EVENTS);
    expect(before.work).toHaveLength((EVENTS / 6) * 4);
    expect(before.work.some((row) => row.locked_by === 'worker-that-was-stopped')).toBe(true);
    expect(before.ledger.length).toBeGreaterThan(0);

    const app = await startApp();
    try {
      const migrations: { name: string }[] = await app.dataSource.query(
        'SELECT name FROM migrations',
      );
      expect(migrations.map((row) => row.name)).toContain(AddEventTenants1764800000000.name);
      const after = await inboxRows(app.dataSource);
      expect(after.events.map((row) => row.tenant)).toEqual(before.events.map(() => ''));
      expect(after.events.map(withoutTenant)).toEqual(before.events);
      expect(after.work).toEqual(before.work);
      expect(after.ledger).toEqual(before.ledger);

      // Every status counts as it did.
      const stats = await app.app.get<InboxQueries>(InboxQueries).stats();
      expect(Object.fromEntries(stats.counts.map((row) => [row.status, row.count]))).toEqual(
        Object.fromEntries(STATUSES_OF_0_1.map((status) => [status, EVENTS / 6])),
      );

      // A re-delivery of an event stored before the upgrade is still a duplicate of it.
      const processed = seeded().find((event) => event.status === 'processed')!;
      const answer = await new WebhookTestClient(app.url).send('stripe', {
        provider: 'stripe',
        method: 'POST',
        body: processed.rawBody,
        headers: {
          'content-type': 'application/json',
          ...stripeSignature(processed.rawBody, SECRET),
        },
      });
      expect(answer.status).toBe(200);
      const rows: Record<string, unknown>[] = await app.dataSource.query(
        `SELECT id, tenant, delivery_count FROM webhook_events WHERE event_id = ${p(1)}`,
        [processed.eventId],
      );
      expect(rows.map((row) => ({ ...row, delivery_count: Number(row.delivery_count) }))).toEqual([
        { id: processed.id, tenant: '', delivery_count: processed.deliveryCount + 1 },
      ]);
    } finally {
      await app.close();
    }
  });

  it("then stores an event id once for each tenant: two tenants' events apart, one tenant's twice as one", async () => {
    const app = await startApp();
    try {
      const store = app.app.get<WebhookStore>(WebhookStore);
      const queries = app.app.get<InboxQueries>(InboxQueries);
      const shared = seeded().find((event) => event.status === 'processed')!;
      const event = (tenant: string) => newWebhookEvent(shared.eventId, { tenant });

      const acme = await store.record(event('acme'));
      expect(acme.duplicate).toBe(false);
      expect(acme.id).not.toBe(shared.id);
      const acmeAgain = await store.record(event('acme'));
      expect(acmeAgain).toMatchObject({ id: acme.id, duplicate: true });
      // Submitted together, so written by one statement (group commit).
      const [globex, initech, globexAgain] = await Promise.all([
        store.record(event('globex')),
        store.record(event('initech')),
        store.record(event('globex')),
      ]);
      expect(globexAgain.id).toBe(globex.id);
      expect([globex.duplicate, globexAgain.duplicate].sort()).toEqual([false, true]);
      expect(initech.duplicate).toBe(false);
      const [umbrella, hooli] = await store.recordAll([event('umbrella'), event('hooli')]);
      expect([umbrella.duplicate, hooli.duplicate]).toEqual([false, false]);
      const ids = [shared.id, acme.id, globex.id, initech.id, umbrella.id, hooli.id];
      expect(new Set(ids).size).toBe(6);

      const rows: { tenant: string; delivery_count: number | string }[] =
        await app.dataSource.query(
          `SELECT tenant, delivery_count FROM webhook_events WHERE event_id = ${p(1)} ORDER BY tenant`,
          [shared.eventId],
        );
      expect(rows.map((row) => `${row.tenant}:${Number(row.delivery_count)}`)).toEqual([
        `:${shared.deliveryCount}`,
        'acme:2',
        'globex:2',
        'hooli:1',
        'initech:1',
        'umbrella:1',
      ]);
      // The database's own key: a second tenant's row goes in, the same tenant's twice does not.
      await copyForTenant(app.dataSource, shared.eventId, 'wayne');
      await expect(copyForTenant(app.dataSource, shared.eventId, 'wayne')).rejects.toThrow(
        /unique/i,
      );

      // Lists, counts and single views read the tenant, and filter by it exactly.
      const listed = await queries.list({ eventId: shared.eventId, tenant: 'acme' }, 10);
      expect(listed.map((summary) => [summary.id, summary.tenant])).toEqual([[acme.id, 'acme']]);
      expect(await queries.count({ eventId: shared.eventId })).toBe(7);
      expect(await queries.count({ tenant: '' })).toBe(EVENTS);
      expect((await queries.find(globex.id))?.event.tenant).toBe('globex');

      // A claimed event carries its tenant to the worker.
      const pending = await store.record(
        newWebhookEvent('evt_after_upgrade', { tenant: 'acme', status: 'pending' }),
      );
      const claimed = await store.claim('test-worker', EVENTS, 30_000, new Date());
      const tenants = new Map(claimed.map((row) => [row.id, row.tenant]));
      expect(tenants.get(pending.id)).toBe('acme');
      expect([...tenants.values()].filter((tenant) => tenant === '')).toHaveLength(
        claimed.length - 1,
      );
    } finally {
      await app.close();
    }
  });

  it('can be reverted, and refuses, changing nothing, while tenants share an event id', async () => {
    const source = await new DataSource({
      ...dataSourceOptions(),
      entities: webhookEntities,
      migrations: webhooksMigrations,
      migrationsRun: true,
    }).initialize();
    try {
      const shared = seeded().find((event) => event.status === 'dead')!;
      await copyForTenant(source, shared.eventId, 'acme');
      await undoMigrationsAfter(source, AddEventTenants1764800000000.name);
      await expect(source.undoLastMigration()).rejects.toThrow(
        /AddEventTenants1764800000000 cannot be reverted: 1 \(endpoint, event_id\) pair\(s\) are held by events of more than one tenant.*Nothing was changed/,
      );
      const names = async () =>
        ((await source.query('SELECT name FROM migrations')) as { name: string }[]).map(
          (row) => row.name,
        );
      expect(await names()).toContain(AddEventTenants1764800000000.name);
      const tenants: { tenant: string }[] = await source.query(
        `SELECT tenant FROM webhook_events WHERE event_id = ${p(1)} ORDER BY tenant`,
        [shared.eventId],
      );
      expect(tenants).toEqual([{ tenant: '' }, { tenant: 'acme' }]);

      // One tenant's event of the pair gone, the migration reverts to 0.2's rows exactly.
      await source.query(`DELETE FROM webhook_events WHERE tenant = ${p(1)}`, ['acme']);
      await source.undoLastMigration();
      expect(await names()).not.toContain(AddEventTenants1764800000000.name);
      expect(await inboxRows(source)).toEqual(before);
      // The old key holds again: one event per endpoint and event id.
      await expect(
        source.query(
          'INSERT INTO webhook_events (id, endpoint, provider, event_id, type, native_type, ' +
            'received_at, raw_body, body_sha256, headers, status) ' +
            `SELECT ${p(1)}, endpoint, provider, event_id, type, native_type, received_at, ` +
            `raw_body, body_sha256, headers, 'ignored' FROM webhook_events WHERE event_id = ${p(2)}`,
          [randomUUID(), shared.eventId],
        ),
      ).rejects.toThrow(/unique/i);

      // And forward again.
      await source.runMigrations();
      const after = await inboxRows(source);
      expect(after.events.map(withoutTenant)).toEqual(before.events);
      expect(after.events.every((row) => row.tenant === '')).toBe(true);
    } finally {
      await source.destroy();
    }
  });
});

describe('the upgrade from 0.2 with deliveries waiting in the SQLite intake file', () => {
  it('moves them into the inbox as events of no tenant, a re-delivery counted on its event', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'pw-tenants-intake-'));
    const sqliteFile = join(directory, 'inbox.sqlite');
    await createInboxOf02(
      { type: 'better-sqlite3', database: sqliteFile },
      { events: EVENTS, start: START, handlerKeys: [HANDLER] },
    );
    const processed = seeded().find((event) => event.status === 'processed')!;
    // NOTE: what 0.2 staged while a transaction held the file: a new event and a re-delivery.
    const intake = new Sqlite(join(directory, 'inbox.webhooks.sqlite'));
    try {
      for (const sql of INTAKE_OF_0_2) intake.exec(sql);
      const stage = intake.prepare(
        'INSERT INTO webhook_intake (id, endpoint, provider, event_id, type, native_type, ' +
          'received_at, raw_body, body_sha256, headers, status, attempts, next_attempt_at, ' +
          'delivery_count) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?, 1)',
      );
      const at = new Date().toISOString().replace('T', ' ').replace('Z', '');
      for (const [eventId, body] of [
        ['evt_staged_by_0_2', '{"id":"evt_staged_by_0_2"}'],
        [processed.eventId, processed.rawBody],
      ]) {
        const sha256 = createHash('sha256').update(body).digest('hex');
        const type = ['payment.succeeded', 'payment_intent.succeeded'];
        stage.run(
          randomUUID(),
          'stripe',
          'stripe',
          eventId,
          ...type,
          at,
          body,
          sha256,
          '{}',
          'pending',
          at,
        );
      }
    } finally {
      intake.close();
    }

    const app = await startTestApp({
      platform: 'express',
      database: 'sqlite',
      sqliteFile,
      webhooks: {
        endpoints: [stripeEndpoint({ name: 'stripe', secret: SECRET })],
        dispatch: { enabled: false },
      },
    });
    try {
      const rows: Record<string, unknown>[] = await app.dataSource.query(
        'SELECT e.event_id, e.tenant, e.delivery_count, w.status AS work FROM webhook_events e ' +
          'LEFT JOIN webhook_work w ON w.event_id = e.id WHERE e.event_id IN (?, ?) ORDER BY e.event_id',
        ['evt_staged_by_0_2', processed.eventId],
      );
      expect(rows).toEqual([
        {
          event_id: processed.eventId,
          tenant: '',
          delivery_count: processed.deliveryCount + 1,
          work: null,
        },
        { event_id: 'evt_staged_by_0_2', tenant: '', delivery_count: 1, work: 'pending' },
      ]);
    } finally {
      await app.close();
    }
    const upgraded = new Sqlite(join(directory, 'inbox.webhooks.sqlite'), { readonly: true });
    try {
      expect(upgraded.prepare('SELECT COUNT(*) AS n FROM webhook_intake').get()).toEqual({ n: 0 });
      expect(
        upgraded
          .prepare("SELECT name FROM pragma_index_list(?) WHERE origin = 'c'")
          .all('webhook_intake'),
      ).toEqual([{ name: 'uq_webhook_intake_endpoint_tenant_event' }]);
    } finally {
      upgraded.close();
    }
  });
});
