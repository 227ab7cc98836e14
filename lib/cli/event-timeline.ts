import type { EventHistoryEntry, WebhookEventDetails } from '../admin/webhook-admin';
import type { HandlerRunRecord } from '../store/ports/inbox-event';
import { safeText } from '../telemetry/safe-text';
import { describeElapsed, indentedLines } from './cli-io';

/** Where the lines under an entry's first line start. */
const DETAIL_INDENT = '    ';

/** One entry of the timeline: when, and its lines (the first one after the time). */
interface TimelineEntry {
  readonly at: Date;
  readonly lines: readonly string[];
}

const plural = (count: number, one: string, many: string) => `${count} ${count === 1 ? one : many}`;

function received(details: WebhookEventDetails): TimelineEntry {
  const { receivedAt, deliveryCount } = details.event;
  return {
    at: receivedAt,
    lines: [`received (${plural(deliveryCount, 'delivery', 'deliveries')} in all)`],
  };
}

function failedAttempt(entry: EventHistoryEntry): TimelineEntry {
  const handler = entry.handlerKey ?? '(before the handlers ran)';
  const finished = entry.finishedAt;
  const ran =
    finished === null
      ? `${entry.at.toISOString()} → ?`
      : `${entry.at.toISOString()} → ${finished.toISOString()} ` +
        `(${describeElapsed(finished.getTime() - entry.at.getTime())})`;
  return {
    at: entry.at,
    lines: [
      safeText(`attempt ${entry.attempt ?? '?'} failed: ${handler} → ${entry.outcome}`),
      safeText(`${DETAIL_INDENT}${ran}, worker ${entry.worker ?? '-'}`),
      ...indentedLines(entry.error ?? entry.errorClass ?? '(no error text)', DETAIL_INDENT),
    ],
  };
}

/** A replay's filter as its history keeps it (JSON), written `status=dead, handler=Orders.paid`. */
export function describeReplayFilter(detail: string | null): string {
  if (detail === null) {
    return 'no filter';
  }
  let filter: unknown;
  try {
    filter = JSON.parse(detail);
  } catch {
    return detail;
  }
  if (typeof filter !== 'object' || filter === null) {
    return detail;
  }
  const entries = Object.entries(filter as Record<string, unknown>);
  if (entries.length === 1 && entries[0][0] === 'id') {
    return 'by its id';
  }
  return entries
    .map(([key, value]) => `${key}=${Array.isArray(value) ? value.join(',') : String(value)}`)
    .join(', ');
}

function operatorChange(entry: EventHistoryEntry): TimelineEntry {
  const actor = entry.actor ?? '(unnamed)';
  const line =
    entry.kind === 'replay'
      ? `replayed by ${actor} from ${entry.outcome} (${describeReplayFilter(entry.detail)})`
      : `settled ${entry.outcome} by hand by ${actor}: ${entry.detail ?? '(no reason)'}`;
  return { at: entry.at, lines: [safeText(line)] };
}

function handlerRun(run: HandlerRunRecord): TimelineEntry {
  const outcome = run.outcome === null ? '' : ` (outcome ${run.outcome})`;
  return {
    at: run.finishedAt,
    lines: [safeText(`${run.handlerKey} succeeded on attempt ${run.attempt}${outcome}`)],
  };
}

/**
 * What happened to an event, oldest first, as lines for `events show`: its deliveries, each
 * failed attempt with its error on lines of its own, the handlers that succeeded (from the
 * ledger), replays and settlements by hand. Every stored value is made safe for the terminal.
 */
export function eventTimeline(details: WebhookEventDetails): string[] {
  const entries: TimelineEntry[] = [
    received(details),
    ...details.history.map((entry) =>
      entry.kind === 'attempt' ? failedAttempt(entry) : operatorChange(entry),
    ),
    ...details.handlerRuns.map(handlerRun),
  ];
  // NOTE: sort is stable, so entries of one instant keep the order above (history in the order
  // it was written).
  entries.sort((a, b) => a.at.getTime() - b.at.getTime());
  return entries.flatMap(({ at, lines: [first, ...rest] }) => [
    `  ${at.toISOString()}  ${first}`,
    ...rest.map((line) => (line === '' ? '' : `  ${line}`)),
  ]);
}
