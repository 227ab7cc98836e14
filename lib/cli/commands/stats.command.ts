import { DATABASE_OPTIONS, flagOption } from '../arguments';
import { CLI_NAME, CliCommand, COMMON_HELP, DATABASE_HELP } from '../cli-command';
import { EXIT_OK } from '../cli-errors';
import { describeDuration, printJson, printLines, table } from '../cli-io';
import { WEBHOOK_EVENT_STATUSES } from '../../store/ports/webhook-event-status';
import { withInbox } from './events.command';

/** `stats`: counts by endpoint and status, and the oldest event waiting to run. */
export const statsCommand: CliCommand = {
  name: 'stats',
  summary: 'counts by endpoint and status, and the oldest event waiting to run',
  maxPositionals: 0,
  options: { ...DATABASE_OPTIONS },
  help: `Usage: ${CLI_NAME} stats [--json]

Counts stored events by endpoint and status, and tells how long the oldest event waiting to
run (pending or retrying) has waited: a growing age means no worker is handling events.

Options:
${COMMON_HELP}

${DATABASE_HELP}`,
  async run(parsed, io) {
    const stats = await withInbox(this.name, parsed, io, ({ admin }) => admin.stats());
    const now = io.now();
    const totals = Object.fromEntries(
      WEBHOOK_EVENT_STATUSES.map((status) => [status, 0]),
    ) as Record<string, number>;
    const endpoints = new Map<string, Record<string, number>>();
    for (const { endpoint, status, count } of stats.counts) {
      totals[status] = (totals[status] ?? 0) + count;
      const row = endpoints.get(endpoint) ?? {};
      row[status] = count;
      endpoints.set(endpoint, row);
    }
    const waitingMs =
      stats.oldestPendingAt === null ? null : now.getTime() - stats.oldestPendingAt.getTime();
    if (flagOption(parsed, 'json')) {
      printJson(io, {
        counts: stats.counts,
        totals,
        oldestPendingAt: stats.oldestPendingAt,
        oldestPendingAgeSeconds: waitingMs === null ? null : Math.floor(waitingMs / 1000),
      });
      return EXIT_OK;
    }
    if (endpoints.size === 0) {
      printLines(io, ['The inbox is empty.']);
      return EXIT_OK;
    }
    const sum = (row: Record<string, number>) =>
      String(Object.values(row).reduce((total, count) => total + count, 0));
    const rows = [...endpoints].map(([endpoint, row]) => [
      endpoint,
      ...WEBHOOK_EVENT_STATUSES.map((status) => String(row[status] ?? 0)),
      sum(row),
    ]);
    rows.push([
      '(all)',
      ...WEBHOOK_EVENT_STATUSES.map((status) => String(totals[status])),
      sum(totals),
    ]);
    printLines(io, [
      ...table(['ENDPOINT', ...WEBHOOK_EVENT_STATUSES.map((s) => s.toUpperCase()), 'TOTAL'], rows),
      '',
      stats.oldestPendingAt === null
        ? 'No event is waiting to run.'
        : `Oldest event waiting to run: received ${stats.oldestPendingAt.toISOString()} ` +
          `(${describeDuration(waitingMs ?? 0)} ago).`,
    ]);
    return EXIT_OK;
  },
};
