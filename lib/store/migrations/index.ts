import { CreateWebhooksTables1764400000000 } from './1764400000000-create-webhooks-tables';

/**
 * The package's migrations, for PostgreSQL and SQLite alike. Add them to your data source's
 * `migrations` (and set `migrationsRun: true`, or run them with the TypeORM CLI).
 */
export const webhooksMigrations = [CreateWebhooksTables1764400000000];

export { CreateWebhooksTables1764400000000 };
