import { WebhookConfigurationError } from '../../core/webhook-errors';
import { MIN_DEDUP_DAYS } from '../../providers/provider-retry-horizons';
import {
  DEFAULT_PROCESSED_DAYS,
  DEFAULT_RETENTION_BATCH_SIZE,
  resolveRetentionOptions,
} from '../../options/retention-options';
import { DATABASE_OPTIONS, flagOption, integerOption } from '../arguments';
import { CLI_NAME, CliCommand, COMMON_HELP, DATABASE_HELP } from '../cli-command';
import { CliUsageError, EXIT_OK } from '../cli-errors';
import { printJson, printLines } from '../cli-io';
import { storedProviderKinds } from '../event-filter';
import { withInbox } from './events.command';

const FLAGS: Readonly<Record<string, string>> = {
  processedDays: '--processed-days',
  dedupDays: '--dedup-days',
  batchSize: '--batch-size',
  intervalMs: '--interval-ms',
};

/** `retention run`: one run of `WebhookRetention` on the database, outside the app. */
export const retentionRunCommand: CliCommand = {
  name: 'retention run',
  summary: 'prune old payloads, delete expired events and idempotency keys, once',
  maxPositionals: 0,
  options: {
    ...DATABASE_OPTIONS,
    'processed-days': { type: 'string' },
    'dedup-days': { type: 'string' },
    'batch-size': { type: 'string' },
  },
  help: `Usage: ${CLI_NAME} retention run [--processed-days <n>] [--dedup-days <n>] [--batch-size <n>] [--json]

Runs the retention job once, as the app's WebhookRetention does every hour: processed and
ignored events lose their raw body and headers after --processed-days, and are deleted (with
their ledger rows) after the longer of --processed-days and --dedup-days, so their dedup keys
outlive every provider retry. Dead events and events still to run are never touched. Expired
idempotency keys are purged when the idempotency tables exist. Every batch is its own short
transaction. Pass the same values as the app's retention options.

Options:
  --processed-days <n>   days a settled event keeps its payload (default ${DEFAULT_PROCESSED_DAYS})
  --dedup-days <n>       days a settled event's dedup key is kept at least (default and
                         minimum ${MIN_DEDUP_DAYS}, or the longest retry horizon of the providers in
                         the inbox when longer: 30 with Adyen events)
  --batch-size <n>       rows per transaction, 1 to 10000 (default ${DEFAULT_RETENTION_BATCH_SIZE})
${COMMON_HELP}

${DATABASE_HELP}`,
  async run(parsed, io) {
    const values = {
      processedDays: integerOption(this.name, parsed, 'processed-days', 1),
      dedupDays: integerOption(this.name, parsed, 'dedup-days', 1),
      batchSize: integerOption(this.name, parsed, 'batch-size', 1, 10_000),
      intervalMs: 0,
    };
    const now = io.now();
    const { report, options } = await withInbox(
      this.name,
      parsed,
      io,
      async ({ dataSource, store, queries }) => {
        const kinds = await storedProviderKinds(queries);
        let options;
        try {
          options = resolveRetentionOptions(
            values,
            kinds.map((kind) => ({ kind })),
            (field) => FLAGS[field],
          );
        } catch (error) {
          if (error instanceof WebhookConfigurationError) {
            throw new CliUsageError(error.message, this.name);
          }
          throw error;
        }
        // NOTE: loaded only now, as the store in withInbox().
        const [{ TypeOrmIdempotencyStore }, { WebhookRetention }] = await Promise.all([
          import('../../idempotency/typeorm-idempotency.store'),
          import('../../retention/webhook-retention'),
        ]);
        const idempotency = new TypeOrmIdempotencyStore(dataSource, store);
        const hasIdempotencyTables = await idempotency.initialize().then(
          () => true,
          () => false,
        );
        const retention = new WebhookRetention(
          queries,
          { retention: options },
          hasIdempotencyTables ? idempotency : null,
        );
        return { report: await retention.run(now), options };
      },
    );
    if (flagOption(parsed, 'json')) {
      printJson(io, {
        processedDays: options.processedDays,
        dedupDays: options.dedupDays,
        ...report,
      });
      return EXIT_OK;
    }
    printLines(io, [
      `Retention as of ${now.toISOString()} (payloads kept ${options.processedDays} days, ` +
        `events ${Math.max(options.processedDays, options.dedupDays)} days):`,
      `  pruned the payload of ${report.prunedPayloads} event(s) received before ` +
        report.payloadsPrunedBefore.toISOString(),
      `  deleted ${report.deletedEvents} event(s) and ${report.deletedHandlerRuns} handler ` +
        `run(s) received before ${report.eventsDeletedBefore.toISOString()}`,
      report.idempotency
        ? `  purged ${report.idempotency.keys} expired idempotency key(s) and ` +
          `${report.idempotency.calls} call(s)`
        : '  idempotency tables not found: nothing to purge there',
    ]);
    return EXIT_OK;
  },
};
