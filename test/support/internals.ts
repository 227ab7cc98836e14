/**
 * What the end-to-end specs need of the package beyond its public entries: the entity classes
 * they read rows through, the migrations by class name, the parts a worker is assembled from,
 * and the constants a spec measures against. Everything public comes from the package entries
 * (`nestjs-payment-webhooks`, `/testing`, `/express`, …); a spec reaches `lib/` only through
 * this file, so what the specs depend on beyond the public surface is one list to read.
 */

// admin: the inbox page's modules, each of which the browser must be served.
export { INBOX_PAGE_MODULES } from '../../lib/admin/inbox-page';

// cli: the command line as its bin runs it, for the specs that run it in their own process,
// with the logger the bin gives the package; loaded when first asked for, as most specs never
// run it.
export type { CliIo, CliStream } from '../../lib/cli/cli-io';
export async function cliEntry() {
  const [{ runCli }, { cliLogger }] = await Promise.all([
    import('../../lib/cli/cli'),
    import('../../lib/cli/cli-logger'),
  ]);
  return { runCli, cliLogger };
}

// core: the checksum PayPal's transmissions sign, to forge bodies that collide with it.
export { crc32 } from '../../lib/core/crc32';

// dispatch: the per-event processor a worker is built from, and how long a process uses the
// pauses it read before it reads them again.
export { WebhookEventProcessor } from '../../lib/dispatch/webhook-event.processor';
export { PAUSES_REFRESH_MS } from '../../lib/dispatch/dispatch-pauses';

// engine: the whole engine, built on a store of the spec's choosing.
export { WebhooksEngine } from '../../lib/engine/webhooks-engine';

// express: the engine behind a router, to reach its parts without HTTP.
export { engineOf } from '../../lib/express/webhooks-router';

// handlers: the registry function handlers are registered in.
export { WebhookHandlerRegistry } from '../../lib/handlers/webhook-handler.registry';

// idempotency: the table shapes of IdempotencyModule's migrations.
export { IDEMPOTENCY_TABLES } from '../../lib/idempotency/idempotency-schema';
export { DataSourceTransactions } from '../../lib/idempotency/idempotency-transactions';
export { TypeOrmIdempotencyStore } from '../../lib/idempotency/typeorm-idempotency.store';

// nest: the admin routes' controller factory and the resolved options' token.
export { createWebhookAdminController } from '../../lib/nest/webhook-admin.controller';
export { WEBHOOKS_RESOLVED_OPTIONS } from '../../lib/nest/webhooks.constants';

// options: the options with their defaults merged, as every part reads them.
export { resolveWebhooksOptions } from '../../lib/options/webhooks-options.resolver';
export type { ResolvedWebhooksOptions } from '../../lib/options/webhooks-options.resolver';

// providers: a provider class, to verify a stored delivery again outside the app; the
// descriptors, whose signing the CLI's `sign` runs, to sign for every provider alike.
export { sberProvider } from '../../lib/providers/sber/sber.provider';
export { PROVIDER_DESCRIPTORS } from '../../lib/providers/catalog/definitions';

// store: the entity classes, the migrations by name, the store's own parts and its limits.
export {
  WebhookEventEntity,
  WebhookHandlerRunEntity,
  WebhookWorkEntity,
} from '../../lib/store/schema/entities';
export {
  AddEventCopies1765100000000,
  AddEventOutcomes1764500000000,
  AddEventTenants1764800000000,
  AddEventHistory1764900000000,
  AddRecoveryJobs1765000000000,
  AddWebhookTransmissions1764600000000,
  CreateWebhooksTables1764400000000,
  SplitEventWork1764700000000,
} from '../../lib/store/schema/migrations';
export { ConnectionLock } from '../../lib/store/connections/connection-lock';
export { TypeOrmWebhookStore } from '../../lib/store/typeorm-webhook.store';
export { InboxSignal } from '../../lib/store/work/inbox-signal';
export { PreparedStatements } from '../../lib/store/connections/prepared-statements';
export { SQLITE_BUSY_TIMEOUT_MS } from '../../lib/store/connections/sqlite-busy';
export { WEBHOOK_TABLES } from '../../lib/store/schema/webhooks-schema';
export { isParked } from '../../lib/store/ports/webhook-event-status';

// telemetry: the logger the package's parts write through, and where it sends their lines.
export { SafeLogger } from '../../lib/telemetry/safe-logger';
export { useWebhooksLogger, webhooksLoggerFactory } from '../../lib/telemetry/webhooks-logger';
export type {
  WebhooksLogger,
  WebhooksLoggerFactory,
  WebhooksLogLevel,
} from '../../lib/telemetry/webhooks-logger';

// recovery: the schedule, run with a clock of the spec's own.
export { RecoverySchedule } from '../../lib/recovery/recovery-schedule';
