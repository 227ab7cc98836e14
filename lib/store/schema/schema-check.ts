import { DataSource, EntityManager, EntityTarget, ObjectLiteral } from 'typeorm';
import { WebhookConfigurationError } from '../../core/webhook-errors';
import { SCHEMA_DIFFERS } from './schema.messages';
import { sqlDialectOf } from './sql-dialect';

/**
 * A table as the package's migrations create it. The columns are the entity's; the indexes,
 * checks and references are what the migrations add beyond them, which TypeORM's entity
 * metadata does not describe (partial indexes, CHECK constraints).
 */
export interface TableShape {
  readonly table: string;
  readonly entity: EntityTarget<ObjectLiteral>;
  readonly indexes: readonly string[];
  /** CHECK constraints, counted. */
  readonly checks: number;
  /** Tables this one has a foreign key to. */
  readonly references: readonly string[];
}

/** What a database reports of one table; `null` when the table does not exist. */
interface FoundTable {
  /** Column name → the database's own type name (lower case). */
  readonly columns: ReadonlyMap<string, string>;
  readonly indexes: ReadonlySet<string>;
  readonly checks: number;
  readonly references: readonly string[];
}

const POSTGRES_TIMESTAMP = 'timestamp with time zone';

async function findPostgresTable(
  manager: EntityManager,
  table: string,
): Promise<FoundTable | null> {
  const [exists] = (await manager.query('SELECT to_regclass($1) IS NOT NULL AS found', [
    table,
  ])) as { found: boolean }[];
  if (!exists?.found) return null;
  const columns = (await manager.query(
    'SELECT attname AS name, format_type(atttypid, atttypmod) AS type FROM pg_attribute ' +
      'WHERE attrelid = to_regclass($1) AND attnum > 0 AND NOT attisdropped',
    [table],
  )) as { name: string; type: string }[];
  const indexes = (await manager.query(
    'SELECT c.relname AS name FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid ' +
      'WHERE i.indrelid = to_regclass($1)',
    [table],
  )) as { name: string }[];
  const constraints = (await manager.query(
    'SELECT contype AS kind, confrelid::regclass::text AS target FROM pg_constraint ' +
      'WHERE conrelid = to_regclass($1)',
    [table],
  )) as { kind: string; target: string }[];
  return {
    columns: new Map(columns.map((c) => [c.name, c.type.toLowerCase()])),
    indexes: new Set(indexes.map((i) => i.name)),
    checks: constraints.filter((c) => c.kind === 'c').length,
    references: constraints.filter((c) => c.kind === 'f').map((c) => c.target.replace(/"/g, '')),
  };
}

async function findSqliteTable(manager: EntityManager, table: string): Promise<FoundTable | null> {
  const [definition] = (await manager.query(
    "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?",
    [table],
  )) as { sql: string }[];
  if (!definition) return null;
  const columns = (await manager.query('SELECT name, type FROM pragma_table_info(?)', [table])) as {
    name: string;
    type: string;
  }[];
  const indexes = (await manager.query('SELECT name FROM pragma_index_list(?)', [table])) as {
    name: string;
  }[];
  const references = (await manager.query(
    'SELECT "table" AS target FROM pragma_foreign_key_list(?)',
    [table],
  )) as { target: string }[];
  return {
    columns: new Map(columns.map((c) => [c.name, c.type.toLowerCase()])),
    indexes: new Set(indexes.map((i) => i.name)),
    checks: (definition.sql.match(/\bCHECK\s*\(/gi) ?? []).length,
    references: references.map((r) => r.target),
  };
}

/** Where `found` falls short of `shape`, one phrase per difference. */
function differences(
  dataSource: DataSource,
  shape: TableShape,
  found: FoundTable,
  postgres: boolean,
): string[] {
  const problems: string[] = [];
  for (const column of dataSource.getMetadata(shape.entity).columns) {
    const type = found.columns.get(column.databaseName);
    if (type === undefined) {
      problems.push(`column "${column.databaseName}" is missing`);
    } else if (postgres && column.type === Date && type !== POSTGRES_TIMESTAMP) {
      problems.push(`column "${column.databaseName}" is ${type}, not ${POSTGRES_TIMESTAMP}`);
    }
  }
  for (const index of shape.indexes) {
    if (!found.indexes.has(index)) problems.push(`index "${index}" is missing`);
  }
  if (found.checks < shape.checks) {
    problems.push(
      `${shape.checks - found.checks} of its ${shape.checks} CHECK constraints are missing`,
    );
  }
  for (const target of shape.references) {
    if (!found.references.includes(target)) {
      problems.push(`the foreign key to "${target}" is missing`);
    }
  }
  return problems;
}

/**
 * Compares the tables with what the package's migrations create: every entity column (on
 * PostgreSQL, every date as `timestamptz`), every index, CHECK constraint and foreign key.
 * @param migrations how the fix names the migrations that make `shapes` (the webhook ones
 * unless given).
 * @returns false when no table of `shapes` exists, so the caller can name the migrations.
 * @throws WebhookConfigurationError naming each difference and the fix.
 */
export async function checkTables(
  dataSource: DataSource,
  manager: EntityManager,
  shapes: readonly TableShape[],
  migrations?: string,
): Promise<boolean> {
  const postgres = sqlDialectOf(dataSource).kind === 'postgres';
  const problems: string[] = [];
  let existing = 0;
  for (const shape of shapes) {
    const found = postgres
      ? await findPostgresTable(manager, shape.table)
      : await findSqliteTable(manager, shape.table);
    if (!found) {
      problems.push(`table "${shape.table}" is missing`);
      continue;
    }
    existing += 1;
    problems.push(
      ...differences(dataSource, shape, found, postgres).map((p) => `"${shape.table}": ${p}`),
    );
  }
  if (existing === 0) return false;
  if (problems.length > 0)
    throw new WebhookConfigurationError(SCHEMA_DIFFERS(problems, migrations));
  return true;
}
