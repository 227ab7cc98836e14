import type { MigrationInterface } from 'typeorm';
import { CreateWebhooksTables1764400000000 } from './1764400000000-create-webhooks-tables';
import { AddEventOutcomes1764500000000 } from './1764500000000-add-event-outcomes';
import { AddWebhookTransmissions1764600000000 } from './1764600000000-add-webhook-transmissions';
import { SplitEventWork1764700000000 } from './1764700000000-split-event-work';
import { AddEventTenants1764800000000 } from './1764800000000-add-event-tenants';
import { AddEventHistory1764900000000 } from './1764900000000-add-event-history';
import { AddRecoveryJobs1765000000000 } from './1765000000000-add-recovery-jobs';
import { AddEventCopies1765100000000 } from './1765100000000-add-event-copies';

/**
 * One of the classes in `webhooksMigrations`, which a data source's `migrations` takes. An app
 * never names the classes themselves (the root entry does not export them), only the list.
 */
export interface WebhooksMigrationClass {
  new (): MigrationInterface;
}

/**
 * The migrations of the inbox, the handler ledger, the signed transmissions seen, the events' history, the pauses of dispatch and the jobs in the background, for PostgreSQL and SQLite alike. Add
 * them to your data source's `migrations` (and set `migrationsRun: true`, or run them with the
 * TypeORM CLI). `IdempotencyModule` has its own: `idempotencyMigrations`.
 */
export const webhooksMigrations: WebhooksMigrationClass[] = [
  CreateWebhooksTables1764400000000,
  AddEventOutcomes1764500000000,
  AddWebhookTransmissions1764600000000,
  SplitEventWork1764700000000,
  AddEventTenants1764800000000,
  AddEventHistory1764900000000,
  AddRecoveryJobs1765000000000,
  AddEventCopies1765100000000,
];

export {
  CreateWebhooksTables1764400000000,
  AddEventOutcomes1764500000000,
  AddWebhookTransmissions1764600000000,
  SplitEventWork1764700000000,
  AddEventTenants1764800000000,
  AddEventHistory1764900000000,
  AddRecoveryJobs1765000000000,
  AddEventCopies1765100000000,
};
