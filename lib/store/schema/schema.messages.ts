/** Error texts of the schema and durability checks at startup. Each one names the fix. */

export const MISSING_ENTITIES =
  'The webhook entities are not registered in the TypeORM data source: set `autoLoadEntities: true` ' +
  'in TypeOrmModule.forRoot(), or add `...webhookEntities` (from nestjs-payment-webhooks) to its `entities`.';

export const MISSING_TABLES =
  'The webhook tables do not exist: add `...webhooksMigrations` (from nestjs-payment-webhooks) to the ' +
  "data source's `migrations` and set `migrationsRun: true`, or run them with the TypeORM CLI. " +
  'TypeORM `synchronize` does not create them: the migrations do.';

export const SCHEMA_DIFFERS = (
  problems: readonly string[],
  migrations = '`...webhooksMigrations` (from nestjs-payment-webhooks)',
) =>
  `The package's tables differ from what its migrations create: ${problems.join('; ')}. ` +
  'The package reads and locks them as the migrations made them, and TypeORM `synchronize` never ' +
  `changes them. Run ${migrations} on this database, or, ` +
  'where an earlier `synchronize` or a hand edit changed them, restore them: drop the tables named ' +
  "here, delete the package's rows from the migrations table, and run the migrations again.";

export const ASYNC_COMMIT =
  'PostgreSQL runs with synchronous_commit=off, so an acknowledged webhook could be lost on a crash. ' +
  "Turn it on for the webhook data source, e.g. `extra: { options: '-c synchronous_commit=on' }` in " +
  'TypeOrmModule.forRoot(), or ALTER ROLE/DATABASE ... SET synchronous_commit = on.';

export const TENANTS_SHARE_EVENT_IDS = (pairs: number) =>
  `AddEventTenants1764800000000 cannot be reverted: ${pairs} (endpoint, event_id) pair(s) are held by ` +
  'events of more than one tenant, and the key it goes back to, UNIQUE(endpoint, event_id), holds ' +
  'one event each. Nothing was changed. Find them with SELECT endpoint, event_id, tenant FROM ' +
  'webhook_events WHERE (endpoint, event_id) IN (SELECT endpoint, event_id FROM webhook_events ' +
  "GROUP BY endpoint, event_id HAVING COUNT(*) > 1), keep one tenant's event of each (delete the " +
  'others with their webhook_work and webhook_handler_runs rows), and revert again.';
