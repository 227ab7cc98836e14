import { DataSource, EntityManager } from 'typeorm';
import { ConnectionLock } from './connection-lock';
import { DEDUP_KEY_POSITIONS, INSERT_COLUMNS, SAME_EVENT_POSITIONS } from '../schema/inbox-columns';
import { openTransactionOn, SqliteConnectionReset } from './sqlite-transaction-state';
import { CONNECTION_LEFT_IN_TRANSACTION } from './sqlite.messages';
import { inTransaction } from './transactions';

const TABLE = 'webhook_intake';
/** The app's database, attached to the intake connection to read `webhook_events`. */
const APP = 'webhooks_app';
const COLUMNS = INSERT_COLUMNS.join(', ');
/** Rows moved by one statement: 23 parameters a row stay under SQLite's 32,766. */
const MOVE_BATCH = 1000;

// NOTE: the columns and constraints of webhook_events, so that a row the intake accepted (and
// the provider was told was stored) is one webhook_events accepts when it is moved.
const CREATE_TABLE = `CREATE TABLE IF NOT EXISTS "${TABLE}" (
  "id" varchar(36) NOT NULL PRIMARY KEY,
  "endpoint" varchar(64) NOT NULL,
  "tenant" varchar(64) NOT NULL DEFAULT '',
  "provider" varchar(32) NOT NULL,
  "event_id" varchar(255) NOT NULL,
  "type" varchar(255) NOT NULL,
  "native_type" varchar(255) NOT NULL,
  "payment_ref" varchar(255),
  "merchant_ref" varchar(255),
  "amount" bigint,
  "currency" varchar(8),
  "payment_status" varchar(64),
  "occurred_at" datetime,
  "received_at" datetime NOT NULL,
  "raw_body" text NOT NULL,
  "body_sha256" varchar(64) NOT NULL,
  "headers" text NOT NULL,
  "status" varchar(16) NOT NULL CHECK ("status" IN ('pending', 'processing', 'retrying', 'processed', 'ignored', 'dead')),
  "attempts" integer NOT NULL DEFAULT 0,
  "next_attempt_at" datetime,
  "processed_at" datetime,
  "delivery_count" integer NOT NULL DEFAULT 1,
  "same_event" varchar(255)
)`;

const CREATE_INDEX = `CREATE UNIQUE INDEX IF NOT EXISTS "uq_${TABLE}_endpoint_tenant_event" ON "${TABLE}" ("endpoint", "tenant", "event_id")`;

/**
 * An intake file made before events had tenants, brought to the shape above: its rows are the
 * deliveries of endpoints without tenants, `''`, and its old key goes once the new one holds.
 */
const UPGRADE_TABLE = [
  `ALTER TABLE "${TABLE}" ADD COLUMN "tenant" varchar(64) NOT NULL DEFAULT ''`,
  CREATE_INDEX,
  `DROP INDEX IF EXISTS "uq_${TABLE}_endpoint_event"`,
];

/** An intake file made before events had copies: its rows have none. */
const ADD_SAME_EVENT = `ALTER TABLE "${TABLE}" ADD COLUMN "same_event" varchar(255)`;

/** Signed transmissions seen while the app's file was held, as `webhook_transmissions` has them. */
const TRANSMISSIONS = 'webhook_intake_transmissions';
const TRANSMISSION_COLUMNS = 'endpoint, transmission_id, body_digest, received_at';
const CREATE_TRANSMISSIONS = `CREATE TABLE IF NOT EXISTS "${TRANSMISSIONS}" (
  "endpoint" varchar(64) NOT NULL,
  "transmission_id" varchar(255) NOT NULL,
  "body_digest" varchar(64) NOT NULL,
  "received_at" datetime NOT NULL,
  PRIMARY KEY ("endpoint", "transmission_id")
)`;
const TRANSMISSION_DIGEST = (table: string) =>
  `SELECT body_digest FROM ${table} WHERE endpoint = ? AND transmission_id = ?`;

/** What storing a delivery found, in the columns `record()` reads back. */
export interface StagedRecord {
  id: string;
  endpoint: string;
  tenant: string;
  event_id: string;
  status: string;
  delivery_count: number;
  body_sha256: string;
  /** Set when the delivery was counted on another copy of its event (see `firstCopyKey()`). */
  copy?: true;
}

/** A statement and its parameters. */
export interface IntakeStatement {
  readonly sql: string;
  readonly params: unknown[];
}

/** A staged row: its values in INSERT_COLUMNS order, the last one its deliveries not yet moved. */
type StagedRow = unknown[];

/**
 * The intake: a small SQLite file of the package's own, with its own connection, where a
 * delivery is stored when the app's database file is held by a transaction (a handler's, or
 * the app's own). The provider is answered once it is committed here; its row moves into
 * `webhook_events` when the file is free again. A re-delivery counts as a duplicate whether its
 * first copy is still here or already moved.
 */
export class SqliteIntake {
  /** One use of the intake connection at a time: a staging transaction must not take in a move. */
  private readonly lock = new ConnectionLock(true);
  /** Batches staged, and how many of them were moved: rows wait while they differ. */
  private staged = 0;
  private moved = 0;
  private closed = false;

  private constructor(
    private connection: DataSource,
    private readonly connect: () => Promise<DataSource>,
    private readonly databasePath: string,
  ) {
    this.lock.verifyEachTurn(() => this.verify());
  }

  /**
   * Opens the intake on a connection from `connect`: creates the tables when missing and
   * attaches the app's database (`databasePath`) to read its inbox.
   */
  static async open(
    connect: () => Promise<DataSource>,
    databasePath: string,
  ): Promise<SqliteIntake> {
    const connection = await prepared(await connect(), databasePath);
    const [{ rows }] = (await connection.query(
      `SELECT (SELECT count(*) FROM ${TABLE}) + (SELECT count(*) FROM ${TRANSMISSIONS}) AS rows`,
    )) as {
      rows: number;
    }[];
    const intake = new SqliteIntake(connection, connect, databasePath);
    // NOTE: rows left by a process that stopped before moving them are moved at startup.
    intake.staged = rows > 0 ? 1 : 0;
    return intake;
  }

  /** True while staged rows wait to be moved. */
  get waiting(): boolean {
    return this.staged !== this.moved;
  }

  /**
   * Stores deliveries (values in INSERT_COLUMNS order), all in one transaction, and reports each
   * as `record()` does: a delivery of an event already in `webhook_events` or already here is a
   * duplicate of it, and so is a copy of it (same tenant and `same_event`) stored under another
   * endpoint or event id.
   */
  stage(rows: readonly unknown[][]): Promise<StagedRecord[]> {
    const placeholders = INSERT_COLUMNS.map(() => '?').join(', ');
    const upsert =
      `INSERT INTO ${TABLE} (${COLUMNS}) VALUES (${placeholders}) ` +
      `ON CONFLICT (endpoint, tenant, event_id) DO UPDATE SET delivery_count = ${TABLE}.delivery_count + 1 ` +
      'RETURNING id, endpoint, tenant, event_id, status, delivery_count, body_sha256';
    const lookup =
      `SELECT id, status, delivery_count, body_sha256 FROM ${APP}.webhook_events ` +
      'WHERE endpoint = ? AND tenant = ? AND event_id = ?';
    return this.lock.run(async () => {
      const records = await inTransaction(this.connection, async (manager) => {
        const found: StagedRecord[] = [];
        for (const given of rows) {
          const copyOf = await firstCopyKey(manager, given);
          const values = copyOf ? keyedAs(given, copyOf) : given;
          const key = DEDUP_KEY_POSITIONS.map((i) => values[i]);
          const [stored] = (await manager.query(lookup, key)) as StagedRecord[];
          const [staged] = (await manager.query(upsert, values)) as StagedRecord[];
          const record: StagedRecord = stored
            ? {
                ...stored,
                endpoint: staged.endpoint,
                tenant: staged.tenant,
                event_id: staged.event_id,
                delivery_count: Number(stored.delivery_count) + Number(staged.delivery_count),
              }
            : staged;
          found.push(copyOf ? { ...record, copy: true } : record);
        }
        return found;
      });
      this.staged += 1;
      return records;
    });
  }

  /**
   * Records a signed transmission (values: endpoint, transmission id, body digest, receive time)
   * while the app's file is held, and returns the digest of the body it first came with: the
   * one in `webhook_transmissions` or staged here, else the one given, now staged.
   */
  stageTransmission(values: readonly [string, string, string, unknown]): Promise<string> {
    const [endpoint, transmissionId] = values;
    return this.lock.run(async () => {
      const digest = await inTransaction(this.connection, async (manager) => {
        for (const table of [`${APP}.webhook_transmissions`, TRANSMISSIONS]) {
          const [seen] = (await manager.query(TRANSMISSION_DIGEST(table), [
            endpoint,
            transmissionId,
          ])) as { body_digest: string }[];
          if (seen) return seen.body_digest;
        }
        await manager.query(
          `INSERT INTO ${TRANSMISSIONS} (${TRANSMISSION_COLUMNS}) VALUES (?, ?, ?, ?)`,
          [...values],
        );
        return undefined;
      });
      if (digest !== undefined) return digest;
      this.staged += 1;
      return values[2];
    });
  }

  /**
   * Runs `record` (which writes the app's `webhook_transmissions`) unless the transmission is
   * staged here, and returns the digest it was first seen with. Holding the intake's lock
   * meanwhile, so a transmission is never taken as new both here and in the app's file.
   */
  recordTransmission(
    endpoint: string,
    transmissionId: string,
    record: () => Promise<string>,
  ): Promise<string> {
    return this.lock.run(async () => {
      const [staged] = (await this.connection.query(TRANSMISSION_DIGEST(TRANSMISSIONS), [
        endpoint,
        transmissionId,
      ])) as { body_digest: string }[];
      return staged ? staged.body_digest : record();
    });
  }

  /**
   * Moves every staged row into `webhook_events` through `write`, which runs a statement where
   * the app's database may be written (the package's connection, holding its lock). A row of
   * an event already there adds its deliveries to that row's count.
   */
  async moveInto(
    write: (statements: readonly IntakeStatement[]) => Promise<unknown>,
  ): Promise<void> {
    while (this.waiting) {
      const seen = this.staged;
      const rows = await this.take();
      if (rows.length > 0) {
        await write(this.moveStatements(rows));
        // NOTE: a crash here moves these rows again at the next start: the events are not
        // doubled (the unique key), only their delivery counts grow by the deliveries staged.
        await this.forget(rows);
      }
      const transmissions = await this.moveTransmissions(write);
      if (rows.length < MOVE_BATCH && transmissions < MOVE_BATCH) {
        this.moved = seen;
      }
    }
  }

  /**
   * After each use of the intake connection: one left inside a transaction (see
   * `openTransactionOn`) is closed, which rolls that transaction back, and opened anew, and the
   * use fails with {@link SqliteConnectionReset}, so no delivery in it is answered as stored.
   */
  private async verify(): Promise<void> {
    if (this.closed) {
      return;
    }
    if (!this.connection.isInitialized) {
      this.connection = await prepared(await this.connect(), this.databasePath);
      return;
    }
    const open = openTransactionOn(this.connection);
    if (!open) {
      return;
    }
    const file = String(this.connection.options.database);
    await this.connection.destroy();
    this.connection = await prepared(await this.connect(), this.databasePath);
    throw new SqliteConnectionReset(CONNECTION_LEFT_IN_TRANSACTION(file, open));
  }

  /** Closes the intake connection. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.connection.isInitialized) {
      await this.connection.destroy();
    }
  }

  private take(): Promise<StagedRow[]> {
    return this.lock.run(async () => {
      const rows = (await this.connection.query(
        `SELECT ${COLUMNS} FROM ${TABLE} ORDER BY received_at, id LIMIT ?`,
        [MOVE_BATCH],
      )) as Record<string, unknown>[];
      return rows.map((row) => INSERT_COLUMNS.map((column) => row[column]));
    });
  }

  /**
   * The staged rows into `webhook_events`, and a work row for each new pending event among
   * them; `write` runs the two in one transaction. A row moved again after a crash finds its
   * event, and its work row or its settlement, already there.
   */
  private moveStatements(rows: readonly StagedRow[]): IntakeStatement[] {
    const tuple = `(${INSERT_COLUMNS.map(() => '?').join(', ')})`;
    const ids = rows.map((row) => row[0]);
    return [
      {
        sql:
          `INSERT INTO webhook_events (${COLUMNS}) VALUES ${rows.map(() => tuple).join(', ')} ` +
          'ON CONFLICT (endpoint, tenant, event_id) DO UPDATE SET ' +
          'delivery_count = webhook_events.delivery_count + excluded.delivery_count ' +
          // NOTE: a copy of an event written into webhook_events while this one waited here (the
          // file was free again before the move): the delivery is counted on that copy's row.
          'ON CONFLICT (tenant, same_event) WHERE same_event IS NOT NULL DO UPDATE SET ' +
          'delivery_count = webhook_events.delivery_count + excluded.delivery_count',
        params: rows.flat(),
      },
      {
        sql:
          'INSERT INTO webhook_work (event_id, status, attempts, next_attempt_at) ' +
          "SELECT id, 'pending', 0, next_attempt_at FROM webhook_events " +
          `WHERE id IN (${ids.map(() => '?').join(', ')}) AND status = 'pending' ` +
          'ON CONFLICT (event_id) DO NOTHING',
        params: ids,
      },
    ];
  }

  /** Moves up to {@link MOVE_BATCH} staged transmissions into `webhook_transmissions`. */
  private async moveTransmissions(
    write: (statements: readonly IntakeStatement[]) => Promise<unknown>,
  ): Promise<number> {
    const rows = await this.lock.run(
      () =>
        this.connection.query(`SELECT ${TRANSMISSION_COLUMNS} FROM ${TRANSMISSIONS} LIMIT ?`, [
          MOVE_BATCH,
        ]) as Promise<Record<string, unknown>[]>,
    );
    if (rows.length === 0) return 0;
    const columns = TRANSMISSION_COLUMNS.split(', ');
    await write([
      {
        sql:
          `INSERT INTO webhook_transmissions (${TRANSMISSION_COLUMNS}) VALUES ` +
          rows.map(() => '(?, ?, ?, ?)').join(', ') +
          ' ON CONFLICT (endpoint, transmission_id) DO NOTHING',
        params: rows.flatMap((row) => columns.map((column) => row[column])),
      },
    ]);
    await this.lock.run(() =>
      inTransaction(this.connection, async (manager: EntityManager) => {
        for (const row of rows) {
          await manager.query(
            `DELETE FROM ${TRANSMISSIONS} WHERE endpoint = ? AND transmission_id = ?`,
            [row.endpoint, row.transmission_id],
          );
        }
      }),
    );
    return rows.length;
  }

  /** Takes the moved deliveries off their rows; a row whose deliveries all moved goes. */
  private forget(rows: readonly StagedRow[]): Promise<void> {
    const count = INSERT_COLUMNS.indexOf('delivery_count');
    return this.lock.run(() =>
      inTransaction(this.connection, async (manager: EntityManager) => {
        for (const row of rows) {
          await manager.query(
            `UPDATE ${TABLE} SET delivery_count = delivery_count - ? WHERE id = ?`,
            [row[count], row[0]],
          );
        }
        await manager.query(`DELETE FROM ${TABLE} WHERE delivery_count <= 0`);
      }),
    );
  }
}

/** Readies an intake connection: the table when missing, and the app's database attached. */
async function prepared(connection: DataSource, databasePath: string): Promise<DataSource> {
  try {
    await connection.query(CREATE_TABLE);
    const columns = (await connection.query('SELECT name FROM pragma_table_info(?)', [TABLE])) as {
      name: string;
    }[];
    if (!columns.some((column) => column.name === 'tenant')) {
      await inTransaction(connection, async (manager) => {
        for (const sql of UPGRADE_TABLE) await manager.query(sql);
      });
    }
    if (!columns.some((column) => column.name === 'same_event')) {
      await connection.query(ADD_SAME_EVENT);
    }
    await connection.query(CREATE_INDEX);
    await connection.query(CREATE_TRANSMISSIONS);
    await connection.query(`ATTACH DATABASE ? AS ${APP}`, [databasePath]);
    return connection;
  } catch (error) {
    await connection.destroy().catch(() => undefined);
    throw error;
  }
}

/**
 * The key (endpoint, tenant, event id) of another copy of an event (same tenant and
 * `same_event`, another endpoint or id), in `webhook_events` or staged here; undefined when none
 * is stored or the event has no `same_event`.
 */
async function firstCopyKey(
  manager: EntityManager,
  values: readonly unknown[],
): Promise<readonly unknown[] | undefined> {
  const [tenant, sameEvent] = SAME_EVENT_POSITIONS.map((i) => values[i]);
  if (typeof sameEvent !== 'string') {
    return undefined;
  }
  const [endpoint, , eventId] = DEDUP_KEY_POSITIONS.map((i) => values[i]);
  for (const table of [`${APP}.webhook_events`, TABLE]) {
    const [copy] = (await manager.query(
      `SELECT endpoint, tenant, event_id FROM ${table} WHERE tenant = ? AND same_event = ? ` +
        'AND NOT (endpoint = ? AND event_id = ?)',
      [tenant, sameEvent, endpoint, eventId],
    )) as { endpoint: string; tenant: string; event_id: string }[];
    if (copy) return [copy.endpoint, copy.tenant, copy.event_id];
  }
  return undefined;
}

/** An event's values under another copy's key: staged and moved as a delivery of that copy. */
function keyedAs(values: readonly unknown[], key: readonly unknown[]): unknown[] {
  const keyed = [...values];
  DEDUP_KEY_POSITIONS.forEach((position, i) => (keyed[position] = key[i]));
  return keyed;
}
