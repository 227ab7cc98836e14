import type { WebhookEventDetails } from '../../admin/webhook-admin';
import { dedupFloorFor } from '../../providers/provider-retry-horizons';
import { DEDUP_FLOOR_REASON, EARLY_DEDUP_DELETE } from '../../options/retention.messages';
import type { WebhookEventSummary } from '../../store/ports/inbox-queries.port';
import { REPLAYABLE_STATUSES, WEBHOOK_EVENT_STATUSES } from '../../store/webhook-event-status';
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
import { safeText } from '../../telemetry/safe-text';
import { CliInbox, databaseTarget, openInbox } from '../database';
import { eventFilter, FILTER_HELP, FILTER_OPTIONS, storedProviderKinds } from '../event-filter';
import { ProgressReporter } from '../progress';

const PURGEABLE = ['processed', 'ignored', 'dead'] as const;
const DAY_MS = 86_400_000;

/** Opens the inbox named on the command line, runs `work`, and always closes it. */
export async function withInbox<T>(
  command: string,
  parsed: ParsedCommand,
  io: CliIo,
  work: (inbox: CliInbox) => Promise<T>,
): Promise<T> {
  const inbox = await openInbox(databaseTarget(command, parsed, io.env));
  try {
    return await work(inbox);
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
    nextAttemptAt: event.nextAttemptAt,
    processedAt: event.processedAt,
    lockedBy: event.lockedBy,
    lockedUntil: event.lockedUntil,
    lastError: event.lastError,
  };
}

const time = (value: Date | null) => (value === null ? '-' : value.toISOString());
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
  ${CLI_NAME} events list --payment pi_3PqR2x --json`,
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
          event.status,
          String(event.attempts),
          text(event.paymentRef),
        ]),
      ),
    );
    return EXIT_OK;
  },
};

/** The endpoint, and its tenant at a tenant endpoint: `merchants/acme`. */
function endpointOf(event: { readonly endpoint: string; readonly tenant: string }): string {
  return event.tenant === '' ? event.endpoint : `${event.endpoint}/${event.tenant}`;
}

function describeEvent(details: WebhookEventDetails): string[] {
  const { event, handlerRuns } = details;
  const fields: [string, string][] = [
    ['endpoint', `${endpointOf(event)} (${event.provider})`],
    ['event id', event.eventId],
    ['type', `${event.type} (${event.nativeType})`],
    ['status', event.status],
    ['attempts', String(event.attempts)],
    ['deliveries', String(event.deliveryCount)],
    ['payment', text(event.paymentRef)],
    ['order', text(event.merchantRef)],
    [
      'amount',
      event.amount === null ? '-' : `${event.amount} ${event.currency ?? ''} (minor units)`.trim(),
    ],
    ['payment status', text(event.paymentStatus)],
    ['outcome', text(event.outcome)],
    ['provider status', text(event.providerStatus)],
    ['occurred', time(event.occurredAt)],
    ['received', time(event.receivedAt)],
    ['next attempt', time(event.nextAttemptAt)],
    ['processed', time(event.processedAt)],
    [
      'locked by',
      event.lockedBy === null ? '-' : `${event.lockedBy} until ${time(event.lockedUntil)}`,
    ],
    ['last error', text(event.lastError)],
  ];
  const width = Math.max(...fields.map(([name]) => name.length));
  const lines = [
    `Event ${safeText(event.id)}`,
    ...fields.map(([name, value]) => `  ${name.padEnd(width)}  ${safeText(value)}`),
  ];
  lines.push('', 'Handler runs');
  if (handlerRuns.length === 0) {
    lines.push('  none finished');
  } else {
    lines.push(
      ...table(
        ['HANDLER', 'ATTEMPT', 'FINISHED', 'OUTCOME'],
        handlerRuns.map((run) => [
          run.handlerKey,
          String(run.attempt),
          run.finishedAt.toISOString(),
          text(run.outcome),
        ]),
      ).map((line) => `  ${line}`),
    );
  }
  const headers = Object.entries(event.headers ?? {});
  if (event.rawBody === '' && headers.length === 0) {
    lines.push('', `Payload pruned by retention (body sha256 ${event.bodySha256})`);
    return lines;
  }
  lines.push('', 'Headers (signatures and credentials are never stored)');
  lines.push(
    ...(headers.length === 0
      ? ['  none']
      : headers.map(([name, value]) => `  ${safeText(name)}: ${safeText(value)}`)),
  );
  lines.push(
    '',
    `Body (${Buffer.byteLength(event.rawBody, 'utf8')} bytes, sha256 ${event.bodySha256})`,
    // NOTE: line feeds stay, so a pretty-printed body reads as it was sent.
    safeText(event.rawBody, { keepLineFeeds: true }),
  );
  return lines;
}

/** `events show <id>`: one event with its handler runs, headers and raw body. */
export const eventsShowCommand: CliCommand = {
  name: 'events show',
  summary: 'one event with its payload and handler runs',
  maxPositionals: 1,
  options: { ...DATABASE_OPTIONS },
  help: `Usage: ${CLI_NAME} events show <id> [--json]

Shows one stored event by its inbox id (the ID column of "events list"): every column, the
handlers that finished for it, the stored headers and the raw body exactly as received.

Options:
${COMMON_HELP}

${DATABASE_HELP}`,
  async run(parsed, io) {
    const id = parsed.positionals[0];
    if (id === undefined) {
      throw new CliUsageError('give the inbox id of the event: events show <id>', this.name);
    }
    const details = await withInbox(this.name, parsed, io, ({ admin }) => admin.show(id));
    if (!details) {
      throw new CliFailure(`no event with inbox id "${id}" (ids are listed by "events list")`);
    }
    if (flagOption(parsed, 'json')) {
      printJson(io, {
        ...eventSummary(details.event),
        bodySha256: details.event.bodySha256,
        headers: details.event.headers,
        rawBody: details.event.rawBody,
        handlerRuns: details.handlerRuns.map((run) => ({
          handlerKey: run.handlerKey,
          attempt: run.attempt,
          finishedAt: run.finishedAt,
          outcome: run.outcome,
        })),
      });
      return EXIT_OK;
    }
    printLines(io, describeEvent(details));
    return EXIT_OK;
  },
};

async function redeliverOne(inbox: CliInbox, id: string): Promise<void> {
  if (await inbox.admin.redeliver(id)) {
    return;
  }
  const details = await inbox.admin.show(id);
  if (!details) {
    throw new CliFailure(`no event with inbox id "${id}" (ids are listed by "events list")`);
  }
  throw new CliFailure(
    details.event.status === 'processing'
      ? `event ${id} is being handled by a worker (${details.event.lockedBy}) right now; replay it once it settles`
      : `event ${id} is already pending: the app's workers run it at their next poll`,
  );
}

/** `events replay [<id>]`: puts one event, or every matching one, back through its handlers. */
export const eventsReplayCommand: CliCommand = {
  name: 'events replay',
  summary: 'put events back through their handlers (default: dead ones)',
  maxPositionals: 1,
  options: { ...DATABASE_OPTIONS, ...FILTER_OPTIONS },
  help: `Usage: ${CLI_NAME} events replay <id> [--json]
       ${CLI_NAME} events replay [filters] [--json]

Puts events back in the inbox as pending with a fresh attempt budget; the running app's
workers pick them up at their next poll. Handlers already recorded in an event's ledger are
skipped, so a handler that succeeded never runs twice. Without an id, every event matching the
filters is replayed in batches, with progress on stderr.

Filters:
  --status <list>        ${REPLAYABLE_STATUSES.join(', ')} (comma-separated; default dead)
${FILTER_HELP}
${COMMON_HELP}

${DATABASE_HELP}

Examples:
  ${CLI_NAME} events replay 0b7e4d2c-5f0a-4c1e-9d3b-2a6f8e1c4b90
  ${CLI_NAME} events replay --status dead --since 2d --endpoint stripe`,
  async run(parsed, io) {
    const id = parsed.positionals[0];
    const json = flagOption(parsed, 'json');
    if (id !== undefined) {
      const filtered = Object.keys(FILTER_OPTIONS).filter(
        (name) => parsed.values[name] !== undefined,
      );
      if (filtered.length > 0) {
        throw new CliUsageError(
          `give an id or filters, not both (got --${filtered.join(', --')} with id ${id})`,
          this.name,
        );
      }
      await withInbox(this.name, parsed, io, (inbox) => redeliverOne(inbox, id));
      if (json) {
        printJson(io, { replayed: 1, ids: [id] });
      } else {
        printLines(io, [
          `Event ${safeText(id)} put back in the inbox; the app's workers run it next.`,
        ]);
      }
      return EXIT_OK;
    }
    const filter = eventFilter(this.name, parsed, io.now(), REPLAYABLE_STATUSES, ['dead']);
    const report = await withInbox(this.name, parsed, io, async ({ admin }) => {
      const total = await admin.count(filter);
      const progress = new ProgressReporter(io.stderr, 'replayed', total);
      try {
        return await admin.replay({ ...filter, onProgress: (done) => progress.update(done) });
      } finally {
        progress.finish();
      }
    });
    if (json) {
      printJson(io, report);
    } else {
      printLines(io, [
        report.replayed === 0
          ? 'No events to replay.'
          : `Replayed ${report.replayed} event(s); the app's workers run them next.`,
      ]);
    }
    return EXIT_OK;
  },
};

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
