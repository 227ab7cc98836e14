import { QueryFailedError, QueryRunner } from 'typeorm';

/** Rows of one statement. */
export type StatementRows = Record<string, unknown>[];

type AnyQuery = (text: string, parameters?: unknown[], structured?: boolean) => Promise<unknown>;

/** The part of a `pg` client a combined round trip uses. */
interface PgClient {
  query(text: string): Promise<{ rows: StatementRows } | { rows: StatementRows }[]>;
}

/**
 * A value as a PostgreSQL literal. Dates are written as pg writes a parameter (local time with
 * its offset), so a `timestamp` column reads the same either way.
 */
export function pgLiteral(value: unknown): string {
  if (value === null || value === undefined) {
    return 'NULL';
  }
  if (typeof value === 'number' && Number.isFinite(value)) {
    return String(value);
  }
  if (typeof value === 'boolean') {
    return value ? 'TRUE' : 'FALSE';
  }
  const text = value instanceof Date ? localTimestamp(value) : String(value);
  if (text.includes('\0')) {
    // NOTE: PostgreSQL text cannot hold NUL, and the query text would end at it.
    throw new TypeError('A PostgreSQL text value cannot contain the NUL character (\\u0000)');
  }
  const quoted = `'${text.replace(/'/g, "''")}'`;
  // NOTE: with a backslash in it the literal is written as an escape string, so it means the
  // same whatever standard_conforming_strings says (the space keeps the E off a word before it).
  return text.includes('\\') ? ` E${quoted.replace(/\\/g, '\\\\')}` : quoted;
}

function localTimestamp(date: Date): string {
  const pad = (n: number, width = 2) => String(Math.abs(n)).padStart(width, '0');
  const offset = -date.getTimezoneOffset();
  return (
    `${pad(date.getFullYear(), 4)}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}` +
    `T${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}` +
    `.${pad(date.getMilliseconds(), 3)}${offset < 0 ? '-' : '+'}` +
    `${pad(Math.floor(Math.abs(offset) / 60))}:${pad(Math.abs(offset) % 60)}`
  );
}

/** A statement with `$n` placeholders, its parameters written in as literals. */
export function pgInline(sql: string, parameters: readonly unknown[]): string {
  return sql.replace(/\$(\d+)/g, (_, n: string) => pgLiteral(parameters[Number(n) - 1]));
}

/**
 * Runs `step`, one of TypeORM's transaction calls on a PostgreSQL `runner`, and sends
 * `statements` in the same round trip as the step's `boundary` statement: after a
 * `START TRANSACTION`, before a `COMMIT`. TypeORM's own call still runs, so its transaction
 * state and its subscribers' events stay as they would be. Resolves to each statement's rows,
 * or to undefined when the step never sent `boundary`; nothing of `statements` was sent then.
 */
export async function sendWithBoundary(
  runner: QueryRunner,
  boundary: 'START TRANSACTION' | 'COMMIT',
  statements: readonly string[],
  step: () => Promise<void>,
): Promise<StatementRows[] | undefined> {
  const query = runner.query as AnyQuery;
  let rows: StatementRows[] | undefined;
  const combined: AnyQuery = async (text, parameters, structured) => {
    if (rows !== undefined || text !== boundary || (parameters && parameters.length > 0)) {
      return query.call(runner, text, parameters, structured);
    }
    const all = boundary === 'COMMIT' ? [...statements, boundary] : [boundary, ...statements];
    const sql = all.join(';\n');
    const logger = runner.connection.logger;
    logger.logQuery(sql, undefined, runner);
    let results: { rows: StatementRows }[];
    try {
      const client = (await runner.connect()) as PgClient;
      const answer = await client.query(sql);
      results = Array.isArray(answer) ? answer : [answer];
    } catch (error) {
      logger.logQueryError(error as Error, sql, undefined, runner);
      throw new QueryFailedError(sql, undefined, error as Error);
    }
    if (results.length !== all.length) {
      throw new Error(
        `Expected ${all.length} results from one round trip, got ${results.length}: the pg client does not answer each statement`,
      );
    }
    const own = boundary === 'COMMIT' ? results.slice(0, -1) : results.slice(1);
    rows = own.map((result) => result.rows);
    return undefined;
  };
  runner.query = combined as QueryRunner['query'];
  try {
    await step();
  } finally {
    // NOTE: the instance property shadowed the prototype's method; removing it restores it.
    delete (runner as { query?: unknown }).query;
    if (runner.query !== query) {
      runner.query = query as QueryRunner['query'];
    }
  }
  return rows;
}
