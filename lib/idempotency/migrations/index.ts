import { CreateIdempotencyTables1764560000000 } from './1764560000000-create-idempotency-tables';

/**
 * The migrations of `IdempotencyModule`, for PostgreSQL and SQLite alike: add them after the
 * webhook migrations, `migrations: [...webhooksMigrations, ...idempotencyMigrations]`. The
 * class keeps the name and timestamp it had inside `webhooksMigrations`, so on a database that
 * already ran it TypeORM sees it as done.
 */
export const idempotencyMigrations = [CreateIdempotencyTables1764560000000];

export { CreateIdempotencyTables1764560000000 };
