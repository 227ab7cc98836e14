import { UnknownNameError } from '../../admin/operator-names';
import { dedupFloorFor } from '../../providers/provider-retry-horizons';
import { DEDUP_FLOOR_REASON, EARLY_DEDUP_DELETE } from '../../options/retention.messages';
import type { WebhookEventSummary } from '../../store/ports/inbox-queries.port';
import { isParked, WEBHOOK_EVENT_STATUSES } from '../../store/ports/webhook-event-status';
import {
  DATABASE_OPTIONS,
  flagOption,
  integerOption,
  ParsedCommand,
  parseStatuses,
  parseTime,
  stringOption,
} from '../arguments';
import { CLI_NAME, CliCommand, COMMON_HELP, DATABASE_HELP } from '../cli-command';
import { CliFailure, CliUsageError, EXIT_OK } from '../cli-errors';
import { CliIo, describeDuration, printJson, printLines, table } from '../cli-io';
import type { CliInbox } from '../database';
import { databaseTarget } from '../database-target';
import { eventFilter, FILTER_HELP, FILTER_OPTIONS, storedProviderKinds } from '../event-filter';

const PURGEABLE = ['processed', 'ignored', 'dead'] as const;
const DAY_MS = 86_400_000;

/**
 * Opens the inbox named on the command line, runs `work`, and always closes it. An endpoint or
 * handler the database does not know fails the command (exit code 1) with the names it does.
 */
export async function withInbox<T>(
  command: string,
  parsed: ParsedCommand,
  io: CliIo,
  work: (inbox: CliInbox) => Promise<T>,
): Promise<T> {
  const target = databaseTarget(command, parsed, io.env);
  // NOTE: loaded here, not at the top: TypeORM and the store take most of the CLI's start, and
  // help, usage errors, sign and send need none of them.
  const { openInbox } = await import('../database');
  const inbox = await openInbox(target);
  try {
    return await work(inbox);
  } catch (error) {
    throw error instanceof UnknownNameError ? new CliFailure(error.message) : error;
  } finally {
    await inbox.close();
  }
}

/** An event without its payload, as `events list --json` prints it. */
export function eventSummary(event: WebhookEventSummary) {
  return {
    id: event.id,
    endpoint: event.endpoint,
    tenant: event.tenant === '' ? null : event.tenant,
    provider: event.provider,
    eventId: event.eventId,
    type: event.type,
    nativeType: event.nativeType,
    status: event.status,
    paymentRef: event.paymentRef,
    merchantRef: event.merchantRef,
    amount: event.amount,
    currency: event.currency,
    paymentStatus: event.paymentStatus,
    outcome: event.outcome,
    providerStatus: event.providerStatus,
    attempts: event.attempts,
    deliveryCount: event.deliveryCount,
    occurredAt: event.occurredAt,
    receivedAt: event.receivedAt,
    // NOTE: an event a pause holds is due at 9999-12-31, which no script should take literally.
    nextAttemptAt: isParked(event.nextAttemptAt) ? null : event.nextAttemptAt,
    paused: isParked(event.nextAttemptAt),
    processedAt: event.processedAt,
    lockedBy: event.lockedBy,
    lockedUntil: event.lockedUntil,
    lastError: event.lastError,
  };
}

const text = (value: string | number | null) => (value === null ? '-' : String(value));

/** `events list`: stored events, newest first, without payloads. */
export const eventsListCommand: CliCommand = {
  name: 'events list',
  summary: 'list stored events, newest first',
  maxPositionals: 0,
  options: { ...DATABASE_OPTIONS, ...FILTER_OPTIONS, limit: { type: 'string' } },
  help: `Usage: ${CLI_NAME} events list [filters] [--limit <n>] [--json]

Lists stored events, newest first, without their payloads (see "events show").

Filters:
  --status <list>        ${WEBHOOK_EVENT_STATUSES.join(', ')} (comma-separated)
${FILTER_HELP}
  --limit <n>            at most n events, 1 to 1000 (default 100)
${COMMON_HELP}

${DATABASE_HELP}

Examples:
  ${CLI_NAME} events list --status dead --since 24h
  ${CLI_NAME} events list --payment pi_3PqR2x --json
  ${CLI_NAME} events list --group 3f9c2a7e41b0d586`,
  async run(parsed, io) {
    const filter = eventFilter(this.name, parsed, io.now(), WEBHOOK_EVENT_STATUSES);
    const limit = integerOption(this.name, parsed, 'limit', 1, 1000);
    const events = await withInbox(this.name, parsed, io, ({ admin }) =>
      admin.list({ ...filter, limit }),
    );
    if (flagOption(parsed, 'json')) {
      printJson(io, events.map(eventSummary));
      return EXIT_OK;
    }
    if (events.length === 0) {
      printLines(io, ['No events match.']);
      return EXIT_OK;
    }
    printLines(
      io,
      table(
        ['ID', 'RECEIVED', 'ENDPOINT', 'EVENT ID', 'TYPE', 'STATUS', 'ATTEMPTS', 'PAYMENT'],
        events.map((event) => [
          event.id,
          event.receivedAt.toISOString(),
          endpointOf(event),
          event.eventId,
          event.type,
          isParked(event.nextAttemptAt) ? `${event.status} (paused)` : event.status,
          String(event.attempts),
          text(event.paymentRef),
        ]),
      ),
    );
    return EXIT_OK;
  },
};

/** The endpoint, and its tenant at a tenant endpoint: `merchants/acme`. */
export function endpointOf(event: { readonly endpoint: string; readonly tenant: string }): string {
  return event.tenant === '' ? event.endpoint : `${event.endpoint}/${event.tenant}`;
}

/** `events purge`: deletes settled events received before a time, outside the dedup window. */
export const eventsPurgeCommand: CliCommand = {
  name: 'events purge',
  summary: 'delete settled events received before a time',
  maxPositionals: 0,
  options: {
    ...DATABASE_OPTIONS,
    'older-than': { type: 'string' },
    status: { type: 'string' },
    endpoint: { type: 'string' },
    'dry-run': { type: 'boolean' },
    force: { type: 'boolean' },
  },
  help: `Usage: ${CLI_NAME} events purge --older-than <age|time> [--status <list>] [--endpoint <name>]
                                     [--dry-run] [--force] [--json]

Deletes settled events received before the given time, with their handler ledger rows, in
small batches. Events still to run (pending, retrying, processing) are never deleted.
A deleted event's dedup key is gone: a provider retry arriving later would run the handlers
again, so times younger than the dedup window (7 days, or the longest retry horizon of the
providers in the inbox, e.g. 30 days with Adyen) are refused unless --force is given.

Options:
  --older-than <age|time>  required: an age in days (30 or 30d; also 12h) or an ISO 8601 time
  --status <list>          ${PURGEABLE.join(', ')} (comma-separated; default processed,ignored)
  --endpoint <name>        only this endpoint's events
  --dry-run                count what would be deleted, delete nothing
  --force                  allow a time inside the dedup window
${COMMON_HELP}

${DATABASE_HELP}

Examples:
  ${CLI_NAME} events purge --older-than 90
  ${CLI_NAME} events purge --older-than 2025-01-01 --status dead --dry-run`,
  async run(parsed, io) {
    const olderThanText = stringOption(parsed, 'older-than');
    if (olderThanText === undefined) {
      throw new CliUsageError('--older-than is required, e.g. --older-than 90 (days)', this.name);
    }
    const now = io.now();
    const olderThan = parseTime(this.name, '--older-than', olderThanText, now);
    const statusText = stringOption(parsed, 'status');
    const status =
      statusText === undefined
        ? (['processed', 'ignored'] as const)
        : parseStatuses(this.name, '--status', statusText, PURGEABLE);
    const endpoint = stringOption(parsed, 'endpoint');
    const dryRun = flagOption(parsed, 'dry-run');
    const count = await withInbox(this.name, parsed, io, async ({ admin, queries }) => {
      const floor = dedupFloorFor(
        (await storedProviderKinds(queries, endpoint)).map((kind) => ({ kind })),
      );
      const windowStart = new Date(now.getTime() - floor.days * DAY_MS);
      if (olderThan > windowStart && !flagOption(parsed, 'force')) {
        throw new CliUsageError(
          `--older-than ${olderThanText} reaches into the dedup window of ${floor.days} days: ` +
            `${DEDUP_FLOOR_REASON(floor)}. ${EARLY_DEDUP_DELETE} Use --older-than ${floor.days} ` +
            'or older, or add --force when no provider can still retry these events.',
          this.name,
        );
      }
      return dryRun
        ? admin.count({ status, endpoint, until: olderThan })
        : admin.purge({ olderThan, status, endpoint });
    });
    if (flagOption(parsed, 'json')) {
      printJson(io, dryRun ? { wouldDelete: count, olderThan } : { deleted: count, olderThan });
    } else {
      const age = describeDuration(now.getTime() - olderThan.getTime());
      printLines(io, [
        `${dryRun ? 'Would delete' : 'Deleted'} ${count} ${status.join('/')} event(s) received ` +
          `before ${olderThan.toISOString()} (${age} ago).`,
      ]);
    }
    return EXIT_OK;
  },
};
