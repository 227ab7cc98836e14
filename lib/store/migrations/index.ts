import { CreateWebhooksTables1764400000000 } from './1764400000000-create-webhooks-tables';
import { AddEventOutcomes1764500000000 } from './1764500000000-add-event-outcomes';
import { CreateIdempotencyTables1764560000000 } from './1764560000000-create-idempotency-tables';

/**
 * The package's migrations, for PostgreSQL and SQLite alike. Add them to your data source's
 * `migrations` (and set `migrationsRun: true`, or run them with the TypeORM CLI).
 */
export const webhooksMigrations = [
  CreateWebhooksTables1764400000000,
  AddEventOutcomes1764500000000,
  CreateIdempotencyTables1764560000000,
];

export { CreateWebhooksTables1764400000000, AddEventOutcomes1764500000000 };
export { CreateIdempotencyTables1764560000000 };
