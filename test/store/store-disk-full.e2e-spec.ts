import { AddressInfo } from 'node:net';
import { Server } from 'node:http';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import express from 'express';
import { DataSource } from 'typeorm';
import { stripeEndpoint } from 'nestjs-payment-webhooks';
import {
  createWebhooksRouter,
  WebhooksRouter,
  webhookEntities,
  webhooksMigrations,
} from 'nestjs-payment-webhooks/express';
import { post } from '../support/http';
import { createTestDatabase, TestDatabase } from '../support/postgres';
import { signedStripeEvent } from '../support/stripe-event';
import { eventually } from '../support/test-app';

const SECRET = 'whsec_disk_full';

/** Larger than a page, so each effect needs a page of its own: a full disk refuses it. */
const EFFECT_PAD = 'p'.repeat(5000);

/**
 * A disk that fills and frees on demand, for every connection opened on the test's files (the
 * app's, and the package's own, which copy the app's `prepareDatabase`): SQLite's
 * `max_page_count`, at the current size while full, makes every write that needs a new page
 * fail with SQLITE_FULL, as a full disk does, and SQLite then rolls the transaction back itself.
 */
class SimulatedDisk {
  private readonly handles: Database.Database[] = [];
  private full = false;

  readonly prepare = (db: unknown): void => {
    this.handles.push(db as Database.Database);
    this.apply(db as Database.Database);
  };

  fill(): void {
    this.full = true;
    this.open().forEach((db) => this.apply(db));
  }

  free(): void {
    this.full = false;
    this.open().forEach((db) => this.apply(db));
  }

  /** The package's own connection to `file`: the latest one opened on it after the app's. */
  packageConnection(file: string): Database.Database {
    const onFile = this.open().filter((db) => db.name === file);
    expect(onFile.length).toBeGreaterThan(1);
    return onFile[onFile.length - 1];
  }

  /** The intake's connection (the package's file next to `file`). */
  intakeConnection(file: string): Database.Database {
    const intake = file.replace(/\.sqlite$/, '.webhooks.sqlite');
    const onFile = this.open().filter((db) => db.name === intake);
    expect(onFile).toHaveLength(1);
    return onFile[0];
  }

  private open(): Database.Database[] {
    return this.handles.filter((db) => db.open);
  }

  private apply(db: Database.Database): void {
    db.pragma(`max_page_count = ${this.full ? 1 : 1_073_741_823}`);
  }
}

/** A handler's gate: the test decides when the handler of an event goes on. */
class Gates {
  private readonly waiting = new Map<string, { opened: Promise<void>; open: () => void }>();

  close(eventId: string): void {
    let open!: () => void;
    const opened = new Promise<void>((resolve) => (open = resolve));
    this.waiting.set(eventId, { opened, open });
  }

  open(eventId: string): void {
    this.waiting.get(eventId)?.open();
  }

  async pass(eventId: string): Promise<void> {
    await this.waiting.get(eventId)?.opened;
  }
}

interface Shop {
  url: string;
  router: WebhooksRouter;
  dataSource: DataSource;
  stop(): Promise<void>;
}

/** A plain Express shop on `database`: its handler writes an effect row through ctx.manager. */
async function startShop(
  database: { file: string; disk: SimulatedDisk } | { url: string },
  gates: Gates,
  dispatch: boolean,
): Promise<Shop> {
  const dataSource = new DataSource({
    ...('file' in database
      ? {
          type: 'better-sqlite3' as const,
          database: database.file,
          prepareDatabase: database.disk.prepare,
        }
      : { type: 'postgres' as const, url: database.url }),
    entities: webhookEntities,
    migrations: webhooksMigrations,
  });
  await dataSource.initialize();
  await dataSource.runMigrations();
  await dataSource.query(
    'CREATE TABLE IF NOT EXISTS order_effects (event_id varchar(255) PRIMARY KEY, pad text NOT NULL)',
  );
  const insertEffect =
    'file' in database
      ? 'INSERT INTO order_effects (event_id, pad) VALUES (?, ?)'
      : 'INSERT INTO order_effects (event_id, pad) VALUES ($1, $2)';
  const router = await createWebhooksRouter({
    dataSource,
    logger: { log: () => undefined, warn: () => undefined, error: () => undefined },
    endpoints: [stripeEndpoint({ name: 'stripe', secret: SECRET })],
    dispatch: {
      enabled: dispatch,
      pollIntervalMs: 50,
      // NOTE: an attempt whose failure could not be written while the disk was full is taken up
      // again when its lease runs out.
      leaseMs: 1000,
      retry: { baseDelayMs: 50, maxDelayMs: 200 },
    },
    observability: { sampleCacheMs: 0 },
    handlers: [
      {
        on: 'payment.succeeded',
        name: 'orders',
        handle: async (event, ctx) => {
          await gates.pass(event.eventId);
          await ctx.manager.query(insertEffect, [event.eventId, EFFECT_PAD]);
        },
      },
    ],
  });
  const app = express();
  app.use('/webhooks', router);
  const server = await new Promise<Server>((resolve) => {
    const listening: Server = app.listen(0, '127.0.0.1', () => resolve(listening));
  });
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks/stripe`,
    router,
    dataSource,
    async stop() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await router.stop();
      await dataSource.destroy();
    },
  };
}

/** Delivers one new signed event; its id and the status it was answered with. */
async function deliver(shop: Shop): Promise<{ id: string; status: number }> {
  const event = signedStripeEvent(SECRET);
  const answer = await post(shop.url, event.body, event.headers);
  return { id: event.id, status: answer.status };
}

/** The event ids committed to the inbox, as another connection to the file sees them. */
function committedEventIds(file: string): Set<string> {
  return new Set(eventIdsIn(file, 'webhook_events'));
}

/**
 * The events stored durably: in `webhook_events`, or in the intake file, where a delivery that
 * arrives while a transaction holds the database file is committed and answered.
 */
function storedEventIds(file: string): Set<string> {
  const intake = file.replace(/\.sqlite$/, '.webhooks.sqlite');
  return new Set([...eventIdsIn(file, 'webhook_events'), ...eventIdsIn(intake, 'webhook_intake')]);
}

function eventIdsIn(file: string, table: string): string[] {
  if (!existsSync(file)) {
    return [];
  }
  const reader = new Database(file, { readonly: true });
  try {
    const exists = reader
      .prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?")
      .get(table);
    const rows = exists
      ? (reader.prepare(`SELECT event_id FROM "${table}"`).all() as { event_id: string }[])
      : [];
    return rows.map((row) => row.event_id);
  } finally {
    reader.close();
  }
}

async function rowsOf(
  dataSource: DataSource,
  sql: string,
): Promise<{ event_id: string; status: string; effects: number }[]> {
  return dataSource.query(sql);
}

const PROCESSED_WITH_EFFECTS =
  'SELECT e.event_id, e.status, (SELECT count(*) FROM order_effects f WHERE f.event_id = e.event_id) AS effects ' +
  'FROM webhook_events e';

describe('a full disk and a connection left inside a transaction (SQLite)', () => {
  let shop: Shop | undefined;
  let file: string;
  let disk: SimulatedDisk;
  let gates: Gates;

  beforeEach(() => {
    file = join(mkdtempSync(join(tmpdir(), 'pw-disk-')), 'shop.sqlite');
    disk = new SimulatedDisk();
    gates = new Gates();
  });

  afterEach(async () => {
    await shop?.stop();
    shop = undefined;
  });

  it('answers 200 only for committed deliveries when a transaction was left open on the package connection, and recovers', async () => {
    shop = await startShop({ file, disk }, gates, false);
    expect((await deliver(shop)).status).toBe(200);
    // NOTE: what a COMMIT or RELEASE that failed without SQLite rolling back leaves behind: a
    // real transaction, open on the package's connection, that every later write would join.
    disk.packageConnection(file).exec('BEGIN IMMEDIATE');

    const answers: { id: string; status: number }[] = [];
    for (let i = 0; i < 6; i += 1) {
      answers.push(await deliver(shop));
    }
    const committed = committedEventIds(file);
    for (const { id, status } of answers) {
      expect([200, 503]).toContain(status);
      if (status === 200) {
        expect(committed.has(id)).toBe(true);
      }
    }
    expect(answers.slice(1).every(({ status }) => status === 200)).toBe(true);

    // After a restart, every acknowledged delivery is there.
    await shop.stop();
    shop = await startShop({ file, disk }, gates, false);
    const afterRestart = committedEventIds(file);
    expect(
      answers.filter(({ status }) => status === 200).every(({ id }) => afterRestart.has(id)),
    ).toBe(true);
  });

  it('mends the intake connection left inside a transaction while the database file is held', async () => {
    shop = await startShop({ file, disk }, gates, false);
    expect((await deliver(shop)).status).toBe(200);
    disk.intakeConnection(file).exec('BEGIN');

    // NOTE: the app's own transaction holds the file, so deliveries go to the intake meanwhile.
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const held = shop.dataSource.transaction(async (manager) => {
      await manager.query('INSERT INTO order_effects (event_id, pad) VALUES (?, ?)', ['app', 'x']);
      await released;
    });
    const whileHeld: { id: string; status: number }[] = [];
    for (let i = 0; i < 4; i += 1) {
      whileHeld.push(await deliver(shop));
    }
    release();
    await held;

    expect(whileHeld.slice(1).map(({ status }) => status)).toEqual([200, 200, 200]);
    const acknowledged = whileHeld.filter(({ status }) => status === 200).map(({ id }) => id);
    await eventually(() => acknowledged.every((id) => committedEventIds(file).has(id)));
  });

  it('answers 503 while the disk is full, names it in health, rolls back a handler that could not commit, and recovers once space is back', async () => {
    shop = await startShop({ file, disk }, gates, true);
    const early = signedStripeEvent(SECRET);
    gates.close(early.id);
    expect((await post(shop.url, early.body, early.headers)).status).toBe(200);

    disk.fill();
    gates.open(early.id);
    const whileFull: { id: string; status: number }[] = [];
    for (let i = 0; i < 20; i += 1) {
      whileFull.push(await deliver(shop));
    }
    expect(whileFull.some(({ status }) => status === 503)).toBe(true);
    const health = await shop.router.health();
    expect(health.status).toBe('down');
    expect(health.writes.ok).toBe(false);
    expect(health.writes.error).toContain('the disk is full: SQLITE_FULL');
    const committedWhileFull = storedEventIds(file);
    for (const { id, status } of whileFull) {
      expect([200, 503]).toContain(status);
      if (status === 200) {
        expect(committedWhileFull.has(id)).toBe(true);
      }
    }

    disk.free();
    const afterFree: { id: string; status: number }[] = [];
    for (let i = 0; i < 5; i += 1) {
      afterFree.push(await deliver(shop));
    }
    expect(afterFree.map(({ status }) => status)).toEqual([200, 200, 200, 200, 200]);
    await eventually(async () => (await shop!.router.health()).writes.ok);

    const acknowledged = [
      early.id,
      ...[...whileFull, ...afterFree].filter((a) => a.status === 200).map((a) => a.id),
    ];
    await eventually(async () => {
      const rows = await rowsOf(shop!.dataSource, PROCESSED_WITH_EFFECTS);
      return rows.filter((row) => row.status === 'processed').length === acknowledged.length;
    }, 20_000);

    await shop.stop();
    shop = await startShop({ file, disk }, gates, false);
    const rows = await rowsOf(shop.dataSource, PROCESSED_WITH_EFFECTS);
    expect(rows.map((row) => row.event_id).sort()).toEqual([...acknowledged].sort());
    for (const row of rows) {
      expect({ id: row.event_id, status: row.status, effects: Number(row.effects) }).toEqual({
        id: row.event_id,
        status: 'processed',
        effects: 1,
      });
    }
  });
});

describe('a full disk (PostgreSQL)', () => {
  let shop: Shop | undefined;
  let database: TestDatabase;

  beforeEach(async () => {
    database = await createTestDatabase();
  });

  afterEach(async () => {
    await shop?.stop();
    shop = undefined;
    await database.drop();
  });

  it('answers 503 while the server reports disk_full, names it in health, and recovers', async () => {
    shop = await startShop({ url: database.url }, new Gates(), true);
    expect((await deliver(shop)).status).toBe(200);
    // NOTE: the error PostgreSQL raises when it cannot extend a table's file, for every row
    // written: a write over no row still goes through, as it does on a full disk.
    await shop.dataSource
      .query(`CREATE FUNCTION disk_is_full() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN RAISE EXCEPTION 'could not extend file "base/16384/16385": No space left on device'
        USING ERRCODE = 'disk_full'; END $$`);
    await shop.dataSource.query(
      'CREATE TRIGGER disk_is_full BEFORE INSERT OR UPDATE ON webhook_events FOR EACH ROW EXECUTE FUNCTION disk_is_full()',
    );
    const refused = await deliver(shop);
    expect(refused.status).toBe(503);
    const health = await shop.router.health();
    expect(health.status).toBe('down');
    expect(health.writes.error).toContain('the disk is full: PostgreSQL 53100 disk_full');

    await shop.dataSource.query('DROP TRIGGER disk_is_full ON webhook_events');
    await eventually(async () => (await shop!.router.health()).writes.ok);
    const stored = await deliver(shop);
    expect(stored.status).toBe(200);
    const rows = (await shop.dataSource.query('SELECT event_id FROM webhook_events')) as {
      event_id: string;
    }[];
    expect(rows.map((row) => row.event_id)).toContain(stored.id);
    expect(rows.map((row) => row.event_id)).not.toContain(refused.id);
  });
});
