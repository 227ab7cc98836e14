import { randomUUID } from 'node:crypto';
import { DataSource, EntityManager } from 'typeorm';
import { WebhookConfigurationError } from '../core/webhook-errors';
import { checkTables } from '../store/schema/schema-check';
import { SqlDialect, sqlDialectOf } from '../store/schema/sql-dialect';
import { StoredBodyEncoding } from './entities/idempotency-key.entity';
import { IDEMPOTENCY_TABLES } from './idempotency-schema';
import { IdempotencyTransactions } from './idempotency-transactions';
import {
  CallClaim,
  CallClaimResult,
  IdempotencyStore,
  KeyClaim,
  KeyClaimResult,
  PurgedIdempotencyRecords,
  StoredResponse,
} from './idempotency-store.port';
import { MISSING_IDEMPOTENCY_TABLES } from './idempotency.messages';

/** The columns a key claim reads back when the key is not this request's. */
interface KeyRow {
  fingerprint: string;
  state: string;
  locked_until: Date | string | null;
  response_status: number | string | null;
  response_headers: string | null;
  response_body: string | null;
  response_encoding: StoredBodyEncoding | null;
}

/** The columns a call claim reads back when the call is not this attempt's. */
interface CallRow {
  state: string;
  result: string | null;
  locked_until: Date | string | null;
}

/** The two tables of the store. */
type IdempotencyTable = 'idempotency_keys' | 'idempotent_calls';

const MAX_ERROR_LENGTH = 2000;

/** A claim is retried when the row it conflicted with vanished before it could be read. */
const MAX_CLAIM_ROUNDS = 5;

/**
 * The idempotency tables on PostgreSQL or SQLite through a TypeORM data source. Each
 * operation runs through `transactions`: the webhook store's when the app has one, so on
 * SQLite (one connection) it queues behind the package's other writes instead of joining an
 * open handler transaction.
 */
export class TypeOrmIdempotencyStore implements IdempotencyStore {
  private readonly dialect: SqlDialect;
  private readonly claimKeySql: string;
  private readonly claimCallSql: string;

  constructor(
    private readonly dataSource: DataSource,
    private readonly transactions: IdempotencyTransactions,
  ) {
    this.dialect = sqlDialectOf(dataSource);
    const p = (i: number) => this.dialect.param(i);
    this.claimKeySql =
      'INSERT INTO idempotency_keys (id, scope, principal, idempotency_key, fingerprint, state, ' +
      'lock_token, locked_until, created_at, expires_at) ' +
      `VALUES (${p(1)}, ${p(2)}, ${p(3)}, ${p(4)}, ${p(5)}, 'in_progress', ${p(6)}, ${p(7)}, ${p(8)}, ${p(9)}) ` +
      // NOTE: one statement decides under the unique index: a new key is inserted; an expired
      // key, or an identical request's key whose holder stopped renewing its lease (a crash),
      // is taken over; anything else is left alone and returns no row.
      'ON CONFLICT (scope, principal, idempotency_key) DO UPDATE SET ' +
      "fingerprint = excluded.fingerprint, state = 'in_progress', lock_token = excluded.lock_token, " +
      'locked_until = excluded.locked_until, created_at = excluded.created_at, ' +
      'expires_at = excluded.expires_at, response_status = NULL, response_headers = NULL, ' +
      'response_body = NULL, response_encoding = NULL ' +
      `WHERE idempotency_keys.expires_at <= ${p(10)} OR (idempotency_keys.state = 'in_progress' ` +
      `AND idempotency_keys.locked_until <= ${p(11)} ` +
      'AND idempotency_keys.fingerprint = excluded.fingerprint) ' +
      'RETURNING id';
    this.claimCallSql =
      'INSERT INTO idempotent_calls (id, scope, idempotency_key, state, attempts, lock_token, ' +
      'locked_until, created_at, updated_at, expires_at) ' +
      `VALUES (${p(1)}, ${p(2)}, ${p(3)}, 'in_progress', 1, ${p(4)}, ${p(5)}, ${p(6)}, ${p(7)}, ${p(8)}) ` +
      // NOTE: a failed call, an abandoned attempt (lease over) or an expired record is taken
      // over by this attempt; a done call or a live attempt is left alone and returns no row.
      'ON CONFLICT (scope, idempotency_key) DO UPDATE SET ' +
      "state = 'in_progress', attempts = idempotent_calls.attempts + 1, " +
      'lock_token = excluded.lock_token, locked_until = excluded.locked_until, ' +
      'updated_at = excluded.updated_at, expires_at = excluded.expires_at, result = NULL, ' +
      'error = NULL ' +
      `WHERE idempotent_calls.state = 'failed' OR (idempotent_calls.state = 'in_progress' ` +
      `AND idempotent_calls.locked_until <= ${p(9)}) OR idempotent_calls.expires_at <= ${p(10)} ` +
      'RETURNING id, attempts';
  }

  /** Checks the tables exist; fails startup naming the fix otherwise. */
  async initialize(): Promise<void> {
    const found = await this.transactions.transaction((manager) =>
      checkTables(
        manager.connection,
        manager,
        IDEMPOTENCY_TABLES,
        '`...idempotencyMigrations` (from nestjs-payment-webhooks/idempotency)',
      ),
    );
    if (!found) throw new WebhookConfigurationError(MISSING_IDEMPOTENCY_TABLES);
  }

  async claimKey(claim: KeyClaim): Promise<KeyClaimResult> {
    const token = randomUUID();
    const { now, lockedUntil, expiresAt } = this.claimTimes(claim);
    const params = [
      randomUUID(),
      claim.scope,
      claim.principal,
      claim.key,
      claim.fingerprint,
      token,
      lockedUntil,
      now,
      expiresAt,
      now,
      now,
    ];
    const p = (i: number) => this.dialect.param(i);
    const readSql =
      'SELECT fingerprint, state, locked_until, response_status, response_headers, response_body, ' +
      `response_encoding FROM idempotency_keys WHERE scope = ${p(1)} AND principal = ${p(2)} ` +
      `AND idempotency_key = ${p(3)}`;
    const failure = `The idempotency key row for scope "${claim.scope}" kept changing while it was claimed`;
    return this.claimInRounds(failure, async (manager): Promise<KeyClaimResult | undefined> => {
      const [taken] = (await this.run(manager, this.claimKeySql, params)).records as {
        id: string;
      }[];
      if (taken) {
        return { outcome: 'acquired', id: taken.id, token };
      }
      const [row] = (await this.run(manager, readSql, [claim.scope, claim.principal, claim.key]))
        .records as KeyRow[];
      return row && this.keyConflict(row, claim.fingerprint);
    });
  }

  async extendKeyLease(id: string, token: string, lockedUntil: Date): Promise<boolean> {
    return this.extendLease('idempotency_keys', id, token, lockedUntil);
  }

  async completeKey(id: string, token: string, response: StoredResponse): Promise<boolean> {
    const p = (i: number) => this.dialect.param(i);
    const { text, encoding } = encodeBody(response.body);
    return this.changed(
      `UPDATE idempotency_keys SET state = 'completed', response_status = ${p(1)}, ` +
        `response_headers = ${p(2)}, response_body = ${p(3)}, response_encoding = ${p(4)}, ` +
        `lock_token = NULL, locked_until = NULL WHERE id = ${p(5)} AND lock_token = ${p(6)} ` +
        "AND state = 'in_progress'",
      [response.status, JSON.stringify(response.headers), text, encoding, id, token],
    );
  }

  async releaseKey(id: string, token: string): Promise<boolean> {
    const p = (i: number) => this.dialect.param(i);
    return this.changed(
      `DELETE FROM idempotency_keys WHERE id = ${p(1)} AND lock_token = ${p(2)} ` +
        "AND state = 'in_progress'",
      [id, token],
    );
  }

  async claimCall(claim: CallClaim): Promise<CallClaimResult> {
    const token = randomUUID();
    const { now, lockedUntil, expiresAt } = this.claimTimes(claim);
    const params = [
      randomUUID(),
      claim.scope,
      claim.key,
      token,
      lockedUntil,
      now,
      now,
      expiresAt,
      now,
      now,
    ];
    const p = (i: number) => this.dialect.param(i);
    const readSql =
      'SELECT state, result, locked_until FROM idempotent_calls ' +
      `WHERE scope = ${p(1)} AND idempotency_key = ${p(2)}`;
    const failure = `The idempotent call row for key "${claim.key}" kept changing while it was claimed`;
    return this.claimInRounds(failure, async (manager): Promise<CallClaimResult | undefined> => {
      const [taken] = (await this.run(manager, this.claimCallSql, params)).records as {
        id: string;
        attempts: number | string;
      }[];
      if (taken) {
        return { outcome: 'acquired', id: taken.id, token, attempt: Number(taken.attempts) };
      }
      const [row] = (await this.run(manager, readSql, [claim.scope, claim.key]))
        .records as CallRow[];
      if (row?.state === 'done') {
        return { outcome: 'done', result: row.result };
      }
      if (row?.state === 'in_progress') {
        return { outcome: 'in_progress', lockedUntil: this.readDate(row.locked_until) };
      }
      // NOTE: a failed call is always taken over, so no row here means it vanished (purged)
      // or changed between the two statements: claim again.
      return undefined;
    });
  }

  async extendCallLease(id: string, token: string, lockedUntil: Date): Promise<boolean> {
    return this.extendLease('idempotent_calls', id, token, lockedUntil);
  }

  async finishCall(id: string, token: string, result: string | null, now: Date): Promise<boolean> {
    const p = (i: number) => this.dialect.param(i);
    return this.changed(
      `UPDATE idempotent_calls SET state = 'done', result = ${p(1)}, error = NULL, ` +
        `lock_token = NULL, locked_until = NULL, updated_at = ${p(2)} WHERE id = ${p(3)} ` +
        `AND lock_token = ${p(4)} AND state = 'in_progress'`,
      [result, this.dialect.date(now), id, token],
    );
  }

  async failCall(id: string, token: string, error: string, now: Date): Promise<boolean> {
    const p = (i: number) => this.dialect.param(i);
    return this.changed(
      `UPDATE idempotent_calls SET state = 'failed', error = ${p(1)}, lock_token = NULL, ` +
        `locked_until = NULL, updated_at = ${p(2)} WHERE id = ${p(3)} AND lock_token = ${p(4)} ` +
        "AND state = 'in_progress'",
      [error.slice(0, MAX_ERROR_LENGTH), this.dialect.date(now), id, token],
    );
  }

  async purgeExpired(now: Date, batchSize: number): Promise<PurgedIdempotencyRecords> {
    if (!Number.isSafeInteger(batchSize) || batchSize <= 0) {
      throw new RangeError(
        `purgeExpired() batchSize must be a positive integer (got ${batchSize})`,
      );
    }
    const keys = await this.purgeTable('idempotency_keys', "state = 'completed'", now, batchSize);
    const calls = await this.purgeTable(
      'idempotent_calls',
      "state <> 'in_progress'",
      now,
      batchSize,
    );
    return { keys, calls };
  }

  private async purgeTable(
    table: IdempotencyTable,
    settled: string,
    now: Date,
    batchSize: number,
  ): Promise<number> {
    const p = (i: number) => this.dialect.param(i);
    // NOTE: a row still under a live lease stays even when expired: its holder is running.
    const sql =
      `DELETE FROM ${table} WHERE id IN (SELECT id FROM ${table} WHERE expires_at <= ${p(1)} ` +
      `AND (${settled} OR locked_until <= ${p(2)}) LIMIT ${p(3)} ${this.dialect.skipLocked})`;
    const at = this.dialect.date(now);
    let total = 0;
    for (;;) {
      const deleted = await this.transactions.transaction(
        async (manager) => (await this.run(manager, sql, [at, at, batchSize])).affected ?? 0,
      );
      total += deleted;
      if (deleted < batchSize) {
        return total;
      }
    }
  }

  /** A claim's time, the end of its lease and its expiry, as the driver stores dates. */
  private claimTimes(claim: KeyClaim | CallClaim): {
    now: Date | string;
    lockedUntil: Date | string;
    expiresAt: Date | string;
  } {
    const at = claim.now.getTime();
    return {
      now: this.dialect.date(claim.now),
      lockedUntil: this.dialect.date(new Date(at + claim.leaseMs)),
      expiresAt: this.dialect.date(new Date(at + claim.ttlMs)),
    };
  }

  /**
   * Runs one claim attempt per transaction until it decides, at most {@link MAX_CLAIM_ROUNDS}
   * times; an attempt that returns undefined found the conflicting row gone and is repeated.
   * @throws Error with `failure` when no round decided.
   */
  private async claimInRounds<T>(
    failure: string,
    attempt: (manager: EntityManager) => Promise<T | undefined>,
  ): Promise<T> {
    for (let round = 0; round < MAX_CLAIM_ROUNDS; round++) {
      const result = await this.transactions.transaction(attempt);
      if (result) {
        return result;
      }
    }
    throw new Error(failure);
  }

  /** Moves the lease of an in-progress row this holder (`token`) still owns. */
  private extendLease(
    table: IdempotencyTable,
    id: string,
    token: string,
    lockedUntil: Date,
  ): Promise<boolean> {
    const p = (i: number) => this.dialect.param(i);
    return this.changed(
      `UPDATE ${table} SET locked_until = ${p(1)} WHERE id = ${p(2)} ` +
        `AND lock_token = ${p(3)} AND state = 'in_progress'`,
      [this.dialect.date(lockedUntil), id, token],
    );
  }

  private keyConflict(row: KeyRow, fingerprint: string): KeyClaimResult {
    if (row.fingerprint !== fingerprint) {
      return { outcome: 'mismatch' };
    }
    if (row.state === 'completed') {
      return {
        outcome: 'completed',
        response: {
          status: Number(row.response_status),
          headers: row.response_headers
            ? (JSON.parse(row.response_headers) as Record<string, string>)
            : {},
          body: decodeBody(row.response_body ?? '', row.response_encoding ?? 'utf8'),
        },
      };
    }
    return { outcome: 'in_progress', lockedUntil: this.readDate(row.locked_until) };
  }

  /** True when the statement changed a row. */
  private changed(sql: string, params: unknown[]): Promise<boolean> {
    return this.transactions.transaction(
      async (manager) => ((await this.run(manager, sql, params)).affected ?? 0) > 0,
    );
  }

  /**
   * Rows and affected count of a statement inside `manager`'s transaction; the structured
   * result has the same shape on both drivers.
   */
  private async run(
    manager: EntityManager,
    sql: string,
    params: unknown[],
  ): Promise<{ records: unknown[]; affected?: number }> {
    const runner = manager.queryRunner ?? this.dataSource.createQueryRunner();
    try {
      const result = await runner.query(sql, params, true);
      return {
        records: (result.records as unknown[] | undefined) ?? [],
        affected: result.affected,
      };
    } finally {
      if (!manager.queryRunner) {
        await runner.release();
      }
    }
  }

  /** A timestamp as the driver returns it: a Date on PostgreSQL, UTC text on SQLite. */
  private readDate(value: Date | string | null): Date {
    if (value === null) {
      return new Date(0);
    }
    if (value instanceof Date) {
      return value;
    }
    return new Date(`${value.replace(' ', 'T')}Z`);
  }
}

/** The body as text: the text itself when the bytes are UTF-8, else base64. */
function encodeBody(body: Buffer): { text: string; encoding: StoredBodyEncoding } {
  const text = body.toString('utf8');
  return Buffer.from(text, 'utf8').equals(body)
    ? { text, encoding: 'utf8' }
    : { text: body.toString('base64'), encoding: 'base64' };
}

function decodeBody(text: string, encoding: StoredBodyEncoding): Buffer {
  return Buffer.from(text, encoding === 'base64' ? 'base64' : 'utf8');
}
