import type { BackfillJob } from '../../backfill/webhook-backfills';
import { WebhookBackfillError } from '../../backfill/webhook-backfills';
import { safeText } from '../../telemetry/safe-text';
import { ACTOR_HELP, ACTOR_OPTIONS, cliActor } from '../actor';
import {
  DATABASE_OPTIONS,
  flagOption,
  integerOption,
  listOption,
  parseTime,
  stringOption,
} from '../arguments';
import {
  ago,
  describeFields,
  jobIdOf,
  JobWatch,
  requiredOption,
  waitForJob,
} from '../background-jobs';
import { CLI_NAME, CliCommand, COMMON_HELP, DATABASE_HELP } from '../cli-command';
import { CliFailure, CliUsageError, EXIT_FAILURE, EXIT_OK } from '../cli-errors';
import { printJson, printLines, table } from '../cli-io';
import type { CliInbox } from '../database';
import { withInbox } from './events.command';

/** Who runs a backfill, as every command about them says it. */
const BACKFILL_NOTE = `A backfill is run by the app's running instances that have its handler (the first one to look
takes it, within a second); the CLI only stores it. The CLI does not load the app, so it cannot
check the handler's name: a backfill waits while no instance of the app with a handler of that
name (ClassName.method) is up, and carries on from the event it had reached after a restart.`;

/** `12/40 passed, 10 ran, 2 failed`: how far a backfill has got. */
function progressOf(job: BackfillJob): string {
  return job.dryRun
    ? `${job.passed}/${job.total} passed, ${job.ran} would run`
    : `${job.passed}/${job.total} passed, ${job.ran} ran, ${job.failed} failed`;
}

function stateOf(job: BackfillJob): string {
  if (job.status !== 'running') {
    return job.status;
  }
  if (job.lockedBy !== null) {
    return `running: instance ${job.lockedBy} is running ${job.handler}`;
  }
  // NOTE: a pause of the handler holds a backfill too; the runner says so in `error`.
  return job.error?.startsWith('waiting') === true
    ? `running: ${job.error}`
    : `running: waiting for an instance of the app that has handler ${job.handler} (is one up?)`;
}

/** `events of "stripe", tenant acme, of types a, b`: the scope besides the window, or `all events`. */
function scopeOf(job: BackfillJob): string {
  const { endpoint, tenant, types } = job.scope;
  const parts = [
    ...(endpoint === undefined ? [] : [`endpoint ${endpoint}`]),
    ...(tenant === undefined ? [] : [`tenant ${tenant}`]),
    ...(types === undefined ? [] : [`types ${types.join(', ')}`]),
  ];
  return parts.length === 0 ? 'every endpoint, tenant and type' : parts.join('; ');
}

function describeJob(job: BackfillJob, now: Date): string[] {
  const by = job.actor === null ? '' : ` by ${job.actor}`;
  return describeFields(`Backfill ${safeText(job.id)}`, [
    ['status', stateOf(job)],
    ['handler', job.handler],
    ['window', `${job.scope.since.toISOString()} to ${job.scope.until.toISOString()}`],
    ['events', scopeOf(job)],
    ['progress', `${progressOf(job)}${job.dryRun ? ' (dry run: nothing runs)' : ''}`],
    ['rate', job.ratePerSecond === null ? 'no limit' : `at most ${job.ratePerSecond} a second`],
    ['started', `${job.createdAt.toISOString()} (${ago(now, job.createdAt)})${by}`],
    ['updated', `${job.updatedAt.toISOString()} (${ago(now, job.updatedAt)})`],
    ['finished', job.finishedAt === null ? '-' : job.finishedAt.toISOString()],
    ['error', job.error ?? '-'],
  ]);
}

/** The backfill's end as a sentence, once it is not running. */
function endOf(job: BackfillJob): string {
  if (job.status === 'failed') {
    return `Backfill ${job.id} failed: ${job.error ?? 'no reason recorded'}`;
  }
  const other = job.passed - job.ran - job.failed;
  if (job.dryRun) {
    return (
      `Dry run ${job.status}: ${job.handler} would run on ${job.ran} of ${job.total} event(s) ` +
      `without a run of it; ${other} would pass without a run (another type). Nothing ran.`
    );
  }
  const failed =
    job.failed === 0 ? '' : `, ${job.failed} failed (run the backfill again to retry those)`;
  const passed = other === 0 ? '' : `; ${other} passed without a run (another type)`;
  const none = job.total === 0 ? ' (every event of the window had a run of it already)' : '';
  return `Backfill ${job.status}: ${job.handler} ran on ${job.ran} event(s)${failed}${passed}${none}.`;
}

/** Failed, or done with runs that threw: exit code 1. */
const exitOf = (job: BackfillJob) =>
  job.status === 'failed' || job.failed > 0 ? EXIT_FAILURE : EXIT_OK;

/** How `--wait` follows a backfill. */
const watchBackfill = (inbox: CliInbox): JobWatch<BackfillJob> => ({
  noun: 'backfill',
  read: (id) => inbox.admin.backfills.backfill(id),
  progress: (job) => `${stateOf(job)}; ${progressOf(job)}`,
});

/** `events backfill`: stores a backfill of one handler for the app's instances to run. */
export const eventsBackfillCommand: CliCommand = {
  name: 'events backfill',
  summary: 'run a handler added later over the stored events of a window (a backfill)',
  maxPositionals: 0,
  options: {
    ...DATABASE_OPTIONS,
    ...ACTOR_OPTIONS,
    handler: { type: 'string' },
    since: { type: 'string' },
    until: { type: 'string' },
    endpoint: { type: 'string' },
    tenant: { type: 'string' },
    type: { type: 'string', multiple: true },
    rate: { type: 'string' },
    'dry-run': { type: 'boolean' },
    wait: { type: 'boolean' },
  },
  help: `Usage: ${CLI_NAME} events backfill --handler <ClassName.method> --since <age|time>
         [--until <age|time>] [--endpoint <name>] [--tenant <id>] [--type <type>]...
         [--dry-run] [--rate <n>] [--wait] [--actor <name>] [--json]

Runs one handler, added to the app after its events arrived (a new analytics sink, a CRM
sync), over the stored events of a window, processed or ignored: once per event, through its
ledger, so an event it ran on already is passed over, and a backfill stopped half-way carries
on without running it twice. The events' other handlers do not run again, and the events keep
their status; each run is marked "backfill" in the event's history. Events of types the
handler does not take are passed without a run. A run that throws is counted as failed and
written to the event's history; run the backfill again to retry those.

${BACKFILL_NOTE}

Options:
  --handler <key>        the handler to run: ClassName.method (required; not checked here)
  --since <age|time>     the window's start: 72h, 3d, or 2026-12-01T00:00:00Z (required)
  --until <age|time>     the window's end (default: now)
  --endpoint <name>      only the events of this endpoint
  --tenant <id>          only the events of this tenant (of a tenant endpoint)
  --type <type>          only the events of this type, e.g. payment.succeeded or
                         stripe:customer.created; repeat it, or separate types by commas
  --dry-run              run nothing: count the events the handler would run on (waits for
                         the count)
  --rate <n>             at most n events a second (default: no limit)
  --wait                 wait until it ends, printing its progress, and print what it did
                         (exit code 1 when it failed or a run threw)
${ACTOR_HELP}
${COMMON_HELP}

${DATABASE_HELP}

Examples:
  ${CLI_NAME} events backfill --handler AnalyticsSink.onEvent --since 30d --dry-run
  ${CLI_NAME} events backfill --handler AnalyticsSink.onEvent --since 30d --type payment.succeeded --wait`,
  async run(parsed, io) {
    const now = io.now();
    const handler = requiredOption(this.name, parsed, 'handler').trim();
    const since = parseTime(this.name, '--since', requiredOption(this.name, parsed, 'since'), now);
    const untilText = stringOption(parsed, 'until');
    const until = untilText === undefined ? now : parseTime(this.name, '--until', untilText, now);
    const types = listOption(this.name, parsed, 'type');
    const ratePerSecond = integerOption(this.name, parsed, 'rate', 1, 100_000);
    const dryRun = flagOption(parsed, 'dry-run');
    const actor = cliActor(this.name, parsed, io.env);
    const endpoint = stringOption(parsed, 'endpoint');
    const tenant = stringOption(parsed, 'tenant');
    const job = await withInbox(this.name, parsed, io, async (inbox) => {
      let started: BackfillJob;
      try {
        started = await inbox.admin.backfills.start({
          handler,
          since,
          until,
          ...(endpoint === undefined ? {} : { endpoint }),
          ...(tenant === undefined ? {} : { tenant }),
          ...(types.length === 0 ? {} : { types }),
          dryRun,
          ...(ratePerSecond === undefined ? {} : { ratePerSecond }),
          actor,
        });
      } catch (error) {
        throw error instanceof WebhookBackfillError
          ? new CliUsageError(error.message, this.name)
          : error;
      }
      if (!dryRun && !flagOption(parsed, 'wait')) {
        return started;
      }
      io.stderr.write(
        `Backfill ${started.id} stored (${started.total} event(s) without a run of ${handler}); ` +
          `waiting for an instance of the app that has ${handler} to run it…\n`,
      );
      return waitForJob(io, started.id, watchBackfill(inbox));
    });
    if (flagOption(parsed, 'json')) {
      printJson(io, job);
      return job.status === 'running' ? EXIT_OK : exitOf(job);
    }
    if (job.status === 'running') {
      printLines(io, [
        `Backfill ${safeText(job.id)} of ${safeText(handler)} stored: ${job.total} event(s) from ` +
          `${since.toISOString()} to ${job.scope.until.toISOString()} without a run of it.`,
        BACKFILL_NOTE,
        `Follow it: ${CLI_NAME} backfills show ${safeText(job.id)}`,
        `Stop it:   ${CLI_NAME} backfills cancel ${safeText(job.id)}`,
      ]);
      return EXIT_OK;
    }
    printLines(io, [safeText(endOf(job))]);
    return exitOf(job);
  },
};

/** `backfills`: the backfills, newest first. */
export const backfillsCommand: CliCommand = {
  name: 'backfills',
  summary: 'backfills of handlers added later, newest first, with their progress',
  maxPositionals: 0,
  options: { ...DATABASE_OPTIONS, limit: { type: 'string' } },
  help: `Usage: ${CLI_NAME} backfills [--limit <n>] [--json]
       ${CLI_NAME} backfills show <id> [--json]
       ${CLI_NAME} backfills cancel <id> [--json]

Lists the backfills ("events backfill", POST backfills on the admin routes), newest first: the
handler, how many events each has passed and run, its status (running, done, canceled or
failed), when it started and who started it.

${BACKFILL_NOTE}

Options:
  --limit <n>            at most n backfills, 1 to 1000 (default 20)
${COMMON_HELP}

${DATABASE_HELP}`,
  async run(parsed, io) {
    const limit = integerOption(this.name, parsed, 'limit', 1, 1000);
    const jobs = await withInbox(this.name, parsed, io, ({ admin }) => admin.backfills.list(limit));
    if (flagOption(parsed, 'json')) {
      printJson(io, jobs);
      return EXIT_OK;
    }
    if (jobs.length === 0) {
      printLines(io, ['No backfills.']);
      return EXIT_OK;
    }
    const now = io.now();
    printLines(io, [
      ...table(
        ['ID', 'HANDLER', 'STATUS', 'PROGRESS', 'STARTED', 'BY'],
        jobs.map((job) => [
          job.id,
          job.handler,
          job.dryRun ? `${job.status} (dry run)` : job.status,
          progressOf(job),
          ago(now, job.createdAt),
          job.actor ?? '-',
        ]),
      ),
      '',
      `See one with: ${CLI_NAME} backfills show <id>`,
    ]);
    return EXIT_OK;
  },
};

const noBackfill = (id: string) =>
  new CliFailure(`no backfill with id "${id}" (ids are listed by "backfills")`);

/** `backfills show <id>`: one backfill and its progress. */
export const backfillsShowCommand: CliCommand = {
  name: 'backfills show',
  summary: 'one backfill: its handler, window, progress, status and who started it',
  maxPositionals: 1,
  options: { ...DATABASE_OPTIONS },
  help: `Usage: ${CLI_NAME} backfills show <id> [--json]

Shows one backfill by its id: its status (running, and on which instance, or waiting for an
instance with its handler, or for a pause of its handler to be lifted; done; canceled; failed
and why), its handler, window and events, how many events it has passed, run and failed on, its
rate, when it started and who started it, and why its last batch failed if it did.

${BACKFILL_NOTE}

Options:
${COMMON_HELP}

${DATABASE_HELP}`,
  async run(parsed, io) {
    const id = jobIdOf(this.name, 'backfill', parsed.positionals);
    const job = await withInbox(this.name, parsed, io, ({ admin }) => admin.backfills.backfill(id));
    if (!job) {
      throw noBackfill(id);
    }
    if (flagOption(parsed, 'json')) {
      printJson(io, job);
      return EXIT_OK;
    }
    printLines(io, describeJob(job, io.now()));
    return EXIT_OK;
  },
};

/** `backfills cancel <id>`: stops a running backfill. */
export const backfillsCancelCommand: CliCommand = {
  name: 'backfills cancel',
  summary: 'stop a running backfill',
  maxPositionals: 1,
  options: { ...DATABASE_OPTIONS },
  help: `Usage: ${CLI_NAME} backfills cancel <id> [--json]

Cancels a running backfill: no run of its handler starts after this. The runs done so far
stay done (a later backfill of the handler passes over those events). Fails with exit code 1
when there is no such backfill or it is not running.

Options:
${COMMON_HELP}

${DATABASE_HELP}`,
  async run(parsed, io) {
    const id = jobIdOf(this.name, 'backfill', parsed.positionals);
    const { canceled, job } = await withInbox(this.name, parsed, io, async ({ admin }) => ({
      canceled: await admin.backfills.cancel(id),
      job: await admin.backfills.backfill(id),
    }));
    if (!job) {
      throw noBackfill(id);
    }
    if (!canceled) {
      throw new CliFailure(
        `backfill ${id} is ${job.status} already: only a running one can be canceled`,
      );
    }
    if (flagOption(parsed, 'json')) {
      printJson(io, job);
      return EXIT_OK;
    }
    printLines(io, [`Canceled backfill ${safeText(id)} after ${progressOf(job)}.`]);
    return EXIT_OK;
  },
};
