import type { WebhookEventFilter, WebhookReplayReport } from '../../admin/webhook-admin';
import { REPLAYABLE_STATUSES } from '../../store/ports/webhook-event-status';
import { safeText } from '../../telemetry/safe-text';
import { ACTOR_HELP, ACTOR_OPTIONS, cliActor } from '../actor';
import { DATABASE_OPTIONS, flagOption, ParsedCommand, stringOption } from '../arguments';
import { CLI_NAME, CliCommand, COMMON_HELP, DATABASE_HELP } from '../cli-command';
import { CliFailure, CliUsageError, EXIT_INTERRUPTED, EXIT_OK } from '../cli-errors';
import { CliIo, printJson, printLines } from '../cli-io';
import type { CliInbox } from '../database';
import { eventFilter, FILTER_HELP, FILTER_OPTIONS, narrowingFilters } from '../event-filter';
import { ProgressReporter } from '../progress';
import { withInbox } from './events.command';
import { BACKGROUND_NOTE, followLines } from './replays.command';

const RATE = /^(\d+(?:\.\d+)?)(?:\/s)?$/;

/** `--rate 50` or `--rate 50/s`: events per second, above 0. */
function rateOption(command: string, parsed: ParsedCommand): number | undefined {
  const text = stringOption(parsed, 'rate');
  if (text === undefined) {
    return undefined;
  }
  const rate = Number(RATE.exec(text.trim())?.[1] ?? Number.NaN);
  if (!(rate > 0) || !Number.isFinite(rate)) {
    throw new CliUsageError(
      `--rate must be a number of events per second above 0, e.g. 50 or 50/s (got "${text}")`,
      command,
    );
  }
  return rate;
}

/** `--rate` of a replay in the background: a whole number, as `startReplay()` stores it. */
function wholeRateOption(command: string, parsed: ParsedCommand): number | undefined {
  const rate = rateOption(command, parsed);
  if (rate !== undefined && !Number.isSafeInteger(rate)) {
    throw new CliUsageError(
      `--rate of a replay in the background must be a whole number of events per second, ` +
        `e.g. 20 or 20/s (got "${stringOption(parsed, 'rate')}")`,
      command,
    );
  }
  return rate;
}

/** Stores a replay of the events `filter` matches, for the app's instances to run. */
async function startInBackground(
  command: string,
  filter: WebhookEventFilter,
  parsed: ParsedCommand,
  io: CliIo,
): Promise<number> {
  const ratePerSecond = wholeRateOption(command, parsed);
  const actor = cliActor(command, parsed, io.env);
  const job = await withInbox(command, parsed, io, ({ admin }) =>
    admin.startReplay({ ...filter, ratePerSecond, actor }),
  );
  if (flagOption(parsed, 'json')) {
    printJson(io, job);
    return EXIT_OK;
  }
  const rate = ratePerSecond === undefined ? '' : `, at most ${ratePerSecond} a second`;
  printLines(io, [
    `Replay ${safeText(job.id)} stored: ${job.total} event(s) to put back${rate}.`,
    "The app's running instances run it; it waits while none is up.",
    ...followLines(job.id),
  ]);
  return EXIT_OK;
}

async function redeliverOne(inbox: CliInbox, id: string, actor: string): Promise<void> {
  if (await inbox.admin.redeliver(id, { actor })) {
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

async function replayOne(
  command: string,
  id: string,
  parsed: ParsedCommand,
  io: CliIo,
): Promise<number> {
  const mixed = [
    ...narrowingFilters(parsed),
    ...['status', 'dry-run', 'rate', 'background']
      .filter((name) => parsed.values[name] !== undefined)
      .map((name) => `--${name}`),
  ];
  if (mixed.length > 0) {
    throw new CliUsageError(
      `give an id or filters, not both (got ${mixed.join(', ')} with id ${id})`,
      command,
    );
  }
  const actor = cliActor(command, parsed, io.env);
  await withInbox(command, parsed, io, (inbox) => redeliverOne(inbox, id, actor));
  if (flagOption(parsed, 'json')) {
    printJson(io, { replayed: 1, ids: [id] });
  } else {
    printLines(io, [`Event ${safeText(id)} put back in the inbox; the app's workers run it next.`]);
  }
  return EXIT_OK;
}

function printDryRun(io: CliIo, report: WebhookReplayReport, json: boolean): void {
  if (json) {
    printJson(io, report);
    return;
  }
  const count = report.wouldReplay ?? 0;
  const sample = report.sample ?? [];
  printLines(io, [
    `Would replay ${count} event(s); nothing was changed.`,
    ...(sample.length === 0
      ? []
      : [
          `${count > sample.length ? `The first ${sample.length}` : 'They are'} ` +
            '(see "events show <id>"):',
          ...sample.map((id) => `  ${safeText(id)}`),
        ]),
  ]);
}

/**
 * Replays every event `filter` matches, with progress on stderr; the first Ctrl-C stops it
 * between two batches.
 */
async function replayMatching(
  command: string,
  filter: WebhookEventFilter,
  parsed: ParsedCommand,
  io: CliIo,
): Promise<WebhookReplayReport> {
  const ratePerSecond = rateOption(command, parsed);
  const actor = cliActor(command, parsed, io.env);
  return withInbox(command, parsed, io, async ({ admin }) => {
    const total = await admin.count(filter);
    const progress = new ProgressReporter(io.stderr, 'replayed', total);
    const controller = new AbortController();
    const stopListening = io.onInterrupt?.(() => {
      progress.finish();
      io.stderr.write('Stopping after this batch (Ctrl-C again to stop at once)…\n');
      controller.abort();
    });
    try {
      return await admin.replay({
        ...filter,
        actor,
        ratePerSecond,
        signal: controller.signal,
        onProgress: (done) => progress.update(done),
      });
    } finally {
      stopListening?.();
      progress.finish();
    }
  });
}

/** `events replay [<id>]`: puts one event, or every matching one, back through its handlers. */
export const eventsReplayCommand: CliCommand = {
  name: 'events replay',
  summary: 'put events back through their handlers (default: dead ones)',
  maxPositionals: 1,
  options: {
    ...DATABASE_OPTIONS,
    ...FILTER_OPTIONS,
    ...ACTOR_OPTIONS,
    'dry-run': { type: 'boolean' },
    rate: { type: 'string' },
    background: { type: 'boolean' },
  },
  help: `Usage: ${CLI_NAME} events replay <id> [--actor <name>] [--json]
       ${CLI_NAME} events replay [filters] [--dry-run] [--rate <n/s>] [--actor <name>] [--json]
       ${CLI_NAME} events replay [filters] --background [--rate <n/s>] [--actor <name>] [--json]

Puts events back in the inbox as pending with a fresh attempt budget; the running app's
workers pick them up at their next poll. Handlers already recorded in an event's ledger are
skipped, so a handler that succeeded never runs twice. Without an id, every event matching the
filters is replayed in batches, with progress on stderr; Ctrl-C stops it between two batches
(the events replayed so far stay replayed) and it exits with 130. Each replay is kept in the
event's history with its actor and filter (see "events show"). An --endpoint or --handler the
database has no record of (no stored event, handler run, failed attempt or pause names it) fails
with exit code 1 and replays nothing, naming those it has and the nearest.

With --background it stores the replay and returns at once, printing its id and the commands
that follow ("replays show <id>") and stop ("replays cancel <id>") it; the events matching now
are put back batch by batch at --rate, whether or not this terminal stays open.
${BACKGROUND_NOTE}

Filters:
  --status <list>        ${REPLAYABLE_STATUSES.join(', ')} (comma-separated; default dead)
${FILTER_HELP}

Options:
  --dry-run              count what would be replayed and list the first ids; change nothing
  --rate <n/s>           put back at most n events per second (50 or 50/s), to spare what the
                         handlers call: one at a time, at most n × T + 1 in any T seconds from
                         the first (n × T + n/50 above 99/s); a whole number with --background
  --background           store the replay for the app's instances to run, and return at once;
                         with --dry-run, the dry run alone: it counts, and stores nothing
${ACTOR_HELP}
${COMMON_HELP}

${DATABASE_HELP}

Examples:
  ${CLI_NAME} events replay 0b7e4d2c-5f0a-4c1e-9d3b-2a6f8e1c4b90
  ${CLI_NAME} events replay --status dead --since 2d --endpoint stripe
  ${CLI_NAME} events replay --group 3f9c2a7e41b0d586 --dry-run
  ${CLI_NAME} events replay --group 3f9c2a7e41b0d586 --rate 20/s --actor alice
  ${CLI_NAME} events replay --status dead --since 7d --background --rate 50`,
  async run(parsed, io) {
    const id = parsed.positionals[0];
    if (id !== undefined) {
      return replayOne(this.name, id, parsed, io);
    }
    const json = flagOption(parsed, 'json');
    const filter = eventFilter(this.name, parsed, io.now(), REPLAYABLE_STATUSES, ['dead']);
    const background = flagOption(parsed, 'background');
    if (flagOption(parsed, 'dry-run')) {
      // NOTE: --dry-run wins over --background: it changes nothing and stores nothing.
      (background ? wholeRateOption : rateOption)(this.name, parsed);
      const report = await withInbox(this.name, parsed, io, ({ admin }) =>
        admin.replay({ ...filter, dryRun: true }),
      );
      printDryRun(io, report, json);
      return EXIT_OK;
    }
    if (background) {
      return startInBackground(this.name, filter, parsed, io);
    }
    const report = await replayMatching(this.name, filter, parsed, io);
    if (json) {
      printJson(io, report);
    } else if (report.canceled) {
      printLines(io, [
        `Canceled: replayed ${report.replayed} event(s) before Ctrl-C; the app's workers run ` +
          'them next. The others matching the filters were left as they were.',
      ]);
    } else {
      printLines(io, [
        report.replayed === 0
          ? 'No events to replay.'
          : `Replayed ${report.replayed} event(s); the app's workers run them next.`,
      ]);
    }
    return report.canceled ? EXIT_INTERRUPTED : EXIT_OK;
  },
};
