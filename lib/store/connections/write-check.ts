import { EntityManager } from 'typeorm';
import { SqlDialect } from '../schema/sql-dialect';
import { WEBHOOK_TABLES } from '../schema/webhooks-schema';
import { MISSING_WRITE_PRIVILEGES, READ_ONLY_SESSION } from './write-check.messages';

/** What the package does to its tables besides reading them. */
const WRITE_PRIVILEGES = ['INSERT', 'UPDATE'];

/**
 * The answer path's upsert over no row: refused where a delivery's would be (privileges, a
 * read-only database, a lock held), and it changes nothing.
 */
const NO_ROW_UPSERT =
  'INSERT INTO webhook_events SELECT * FROM webhook_events WHERE 1 = 0 ' +
  'ON CONFLICT (endpoint, tenant, event_id) DO UPDATE SET delivery_count = webhook_events.delivery_count + 1';

/** This session's read-only setting and the write privileges it lacks, as PostgreSQL reports them. */
interface SessionRights {
  role: string;
  read_only: string;
  /** `<table> <privilege>` pairs. */
  missing: string[];
}

async function postgresRefusal(manager: EntityManager): Promise<string | undefined> {
  const [rights] = (await manager.query(
    "SELECT current_user AS role, current_setting('transaction_read_only') AS read_only, " +
      "ARRAY(SELECT t.name || ' ' || p.name FROM unnest($1::text[]) AS t(name) " +
      'CROSS JOIN unnest($2::text[]) AS p(name) WHERE NOT has_table_privilege(t.name, p.name)) AS missing',
    [WEBHOOK_TABLES.map((shape) => shape.table), WRITE_PRIVILEGES],
  )) as SessionRights[];
  if (rights.read_only === 'on') {
    return READ_ONLY_SESSION;
  }
  if (rights.missing.length === 0) {
    return undefined;
  }
  const missing = new Map<string, string[]>();
  for (const pair of rights.missing) {
    const [table, privilege] = pair.split(' ');
    missing.set(table, [...(missing.get(table) ?? []), privilege]);
  }
  return MISSING_WRITE_PRIVILEGES(rights.role, missing);
}

/**
 * Why the database refuses the package's writes on the connection of `manager`, or undefined
 * when an upsert over no row goes through; throws what that upsert throws.
 */
export async function refusedWrites(
  manager: EntityManager,
  dialect: SqlDialect,
): Promise<string | undefined> {
  const refusal = dialect.kind === 'postgres' ? await postgresRefusal(manager) : undefined;
  if (refusal === undefined) {
    await manager.query(NO_ROW_UPSERT);
  }
  return refusal;
}
