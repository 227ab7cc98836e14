import { CreateWebhooksTables1764400000000 } from './1764400000000-create-webhooks-tables';
import { AddEventOutcomes1764500000000 } from './1764500000000-add-event-outcomes';

/**
 * The migrations of the inbox and the handler ledger, for PostgreSQL and SQLite alike. Add
 * them to your data source's `migrations` (and set `migrationsRun: true`, or run them with the
 * TypeORM CLI). `IdempotencyModule` has its own: `idempotencyMigrations`.
 */
export const webhooksMigrations = [
  CreateWebhooksTables1764400000000,
  AddEventOutcomes1764500000000,
];

export { CreateWebhooksTables1764400000000, AddEventOutcomes1764500000000 };
