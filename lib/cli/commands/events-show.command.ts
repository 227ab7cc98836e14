import type { WebhookEventDetails } from '../../admin/webhook-admin';
import { isParked } from '../../store/ports/webhook-event-status';
import { safeText } from '../../telemetry/safe-text';
import { DATABASE_OPTIONS, flagOption } from '../arguments';
import { CLI_NAME, CliCommand, COMMON_HELP, DATABASE_HELP } from '../cli-command';
import { CliFailure, CliUsageError, EXIT_OK } from '../cli-errors';
import { indentedLines, printJson, printLines, table } from '../cli-io';
import { eventTimeline } from '../event-timeline';
import { endpointOf, eventSummary, withInbox } from './events.command';

const time = (value: Date | null) => (value === null ? '-' : value.toISOString());
const text = (value: string | number | null) => (value === null ? '-' : String(value));

/** The event's columns as `name  value` lines; a value of several lines keeps them, aligned. */
function describeFields(event: WebhookEventDetails['event']): string[] {
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
    [
      'next attempt',
      isParked(event.nextAttemptAt)
        ? 'paused (held by a pause of dispatch, see "pauses")'
        : time(event.nextAttemptAt),
    ],
    ['processed', time(event.processedAt)],
    [
      'locked by',
      event.lockedBy === null ? '-' : `${event.lockedBy} until ${time(event.lockedUntil)}`,
    ],
  ];
  const width = Math.max(...fields.map(([name]) => name.length), 'last error'.length);
  const [firstError, ...moreError] = indentedLines(text(event.lastError), '');
  return [
    ...fields.map(([name, value]) => `  ${name.padEnd(width)}  ${safeText(value)}`),
    `  ${'last error'.padEnd(width)}  ${firstError}`,
    ...moreError.map((line) => (line === '' ? '' : `  ${' '.repeat(width)}  ${line}`)),
  ];
}

function describeHandlerRuns({ handlerRuns }: WebhookEventDetails): string[] {
  if (handlerRuns.length === 0) {
    return ['  none finished'];
  }
  return table(
    ['HANDLER', 'ATTEMPT', 'FINISHED', 'OUTCOME'],
    handlerRuns.map((run) => [
      run.handlerKey,
      String(run.attempt),
      run.finishedAt.toISOString(),
      text(run.outcome),
    ]),
  ).map((line) => `  ${line}`);
}

function describePayload({ event }: WebhookEventDetails): string[] {
  const headers = Object.entries(event.headers ?? {});
  if (event.rawBody === '' && headers.length === 0) {
    return [`Payload pruned by retention (body sha256 ${event.bodySha256})`];
  }
  return [
    'Headers (signatures and credentials are never stored)',
    ...(headers.length === 0
      ? ['  none']
      : headers.map(([name, value]) => `  ${safeText(name)}: ${safeText(value)}`)),
    '',
    `Body (${Buffer.byteLength(event.rawBody, 'utf8')} bytes, sha256 ${event.bodySha256})`,
    // NOTE: line feeds stay, so a pretty-printed body reads as it was sent.
    safeText(event.rawBody, { keepLineFeeds: true }),
  ];
}

function describeEvent(details: WebhookEventDetails): string[] {
  return [
    `Event ${safeText(details.event.id)}`,
    ...describeFields(details.event),
    '',
    'Timeline',
    ...eventTimeline(details),
    '',
    'Handler runs',
    ...describeHandlerRuns(details),
    '',
    ...describePayload(details),
  ];
}

/** `events show <id>`: one event with its timeline, handler runs, headers and raw body. */
export const eventsShowCommand: CliCommand = {
  name: 'events show',
  summary: 'one event: its timeline, payload and handler runs',
  maxPositionals: 1,
  options: { ...DATABASE_OPTIONS },
  help: `Usage: ${CLI_NAME} events show <id> [--json]

Shows one stored event by its inbox id (the ID column of "events list"): every column, its
timeline, the handlers that finished for it, the stored headers and the raw body exactly as
received.

The timeline lists, oldest first: when it was received (and how many deliveries came), each
failed attempt (handler, start and end, what it left the event as, the worker, then the error
with its stack frames on lines of their own), each handler that succeeded, each replay (who,
from which status, with which filter) and each settlement by hand (who, why). An event held by
a pause of dispatch shows "paused" as its next attempt.

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
        history: details.history.map((entry) => ({
          kind: entry.kind,
          at: entry.at,
          finishedAt: entry.finishedAt,
          attempt: entry.attempt,
          handlerKey: entry.handlerKey,
          outcome: entry.outcome,
          errorClass: entry.errorClass,
          error: entry.error,
          fingerprint: entry.fingerprint,
          worker: entry.worker,
          actor: entry.actor,
          detail: entry.detail,
        })),
      });
      return EXIT_OK;
    }
    printLines(io, describeEvent(details));
    return EXIT_OK;
  },
};
