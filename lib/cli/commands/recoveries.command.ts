import type { RecoveryJob } from '../../recovery/webhook-recoveries';
import { WebhookRecoveryError } from '../../recovery/webhook-recoveries';
import { safeText } from '../../telemetry/safe-text';
import { ACTOR_HELP, ACTOR_OPTIONS, cliActor } from '../actor';
import { DATABASE_OPTIONS, flagOption, integerOption, parseTime, stringOption } from '../arguments';
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

/** Who runs a recovery, as every command about them says it. */
const RECOVERY_NOTE = `A recovery is run by the app's running instances, with the endpoint's API credentials (the
first one to look takes it, within a second); the CLI only stores it, so it waits while no
instance of the app is up, and carries on from the page it had reached after a restart.`;

/** `120 read, 7 stored`: how far a recovery has got. */
function progressOf(job: RecoveryJob): string {
  return `${job.found} read, ${job.stored} ${job.dryRun ? 'missing' : 'stored'}`;
}

function stateOf(job: RecoveryJob): string {
  if (job.status !== 'running') {
    return job.status;
  }
  return job.lockedBy === null
    ? 'running: waiting for an instance of the app to take it (is one up?)'
    : `running: instance ${job.lockedBy} is reading the log`;
}

function describeJob(job: RecoveryJob, now: Date): string[] {
  const by = job.actor === null ? '' : ` by ${job.actor}`;
  const fields: [string, string][] = [
    ['status', stateOf(job)],
    ['endpoint', job.tenant === null ? job.endpoint : `${job.endpoint} (tenant ${job.tenant})`],
    ['window', `${job.since.toISOString()} to ${job.until.toISOString()}`],
    ['progress', `${progressOf(job)}${job.dryRun ? ' (dry run: nothing stored)' : ''}`],
    ['rate', job.ratePerSecond === null ? 'no limit' : `at most ${job.ratePerSecond} a second`],
    ['started', `${job.createdAt.toISOString()} (${ago(now, job.createdAt)})${by}`],
    ['updated', `${job.updatedAt.toISOString()} (${ago(now, job.updatedAt)})`],
    ['finished', job.finishedAt === null ? '-' : job.finishedAt.toISOString()],
    ['error', job.error ?? '-'],
  ];
  return describeFields(`Recovery ${safeText(job.id)}`, fields);
}

/** The recovery's end as a sentence, once it is not running. */
function endOf(job: RecoveryJob): string {
  if (job.status === 'failed') {
    return `Recovery ${job.id} failed: ${job.error ?? 'no reason recorded'}`;
  }
  if (job.dryRun) {
    return (
      `Dry run ${job.status}: ${job.found} event(s) in the log's window, ${job.stored} of them ` +
      'not in the inbox (a recovery would store those).'
    );
  }
  return (
    `Recovery ${job.status}: ${job.found} event(s) read from the log, ${job.stored} stored ` +
    '(the others were in the inbox already); the app runs their handlers.'
  );
}

/** How `--wait` follows a recovery. */
const watchRecovery = (inbox: CliInbox): JobWatch<RecoveryJob> => ({
  noun: 'recovery',
  read: (id) => inbox.admin.recoveries.recovery(id),
  progress: (job) => `${stateOf(job)}; ${progressOf(job)}`,
});

/** `events recover`: stores a recovery for the app's instances to run. */
export const eventsRecoverCommand: CliCommand = {
  name: 'events recover',
  summary: "get back events that never arrived from the provider's event log (a recovery)",
  maxPositionals: 0,
  options: {
    ...DATABASE_OPTIONS,
    ...ACTOR_OPTIONS,
    endpoint: { type: 'string' },
    since: { type: 'string' },
    until: { type: 'string' },
    tenant: { type: 'string' },
    rate: { type: 'string' },
    'dry-run': { type: 'boolean' },
    wait: { type: 'boolean' },
  },
  help: `Usage: ${CLI_NAME} events recover --endpoint <name> --since <age|time> [--until <age|time>]
         [--tenant <id>] [--dry-run] [--rate <n>] [--wait] [--actor <name>] [--json]

Gets back the events of a window that the provider created but the app never received (the
endpoint was unreachable longer than the provider retries): the endpoint's provider's event log
is read page by page, and each event is stored under the dedup key its delivery would have had,
so an event that was delivered is not stored twice, and one delivered late is a duplicate. The
events stored are marked "recover" in their history and run by the app's handlers like any
other. Which providers keep a log, and how far back: docs/operations.md.

${RECOVERY_NOTE}

Options:
  --endpoint <name>      the endpoint whose provider's log is read (required)
  --since <age|time>     the window's start: 72h, 3d, or 2026-12-01T00:00:00Z (required)
  --until <age|time>     the window's end (default: now)
  --tenant <id>          on a tenant endpoint, the tenant (read with its own credentials)
  --dry-run              store nothing: count the events of the window the inbox does not have
                         (waits for the count)
  --rate <n>             at most n events read a second (default: no limit)
  --wait                 wait until it ends, printing its progress, and print what it did
${ACTOR_HELP}
${COMMON_HELP}

${DATABASE_HELP}

Examples:
  ${CLI_NAME} events recover --endpoint stripe --since 72h --dry-run
  ${CLI_NAME} events recover --endpoint stripe --since 72h --wait`,
  async run(parsed, io) {
    const now = io.now();
    const endpoint = requiredOption(this.name, parsed, 'endpoint');
    const since = parseTime(this.name, '--since', requiredOption(this.name, parsed, 'since'), now);
    const untilText = stringOption(parsed, 'until');
    const until = untilText === undefined ? now : parseTime(this.name, '--until', untilText, now);
    const ratePerSecond = integerOption(this.name, parsed, 'rate', 1, 100_000);
    const dryRun = flagOption(parsed, 'dry-run');
    const actor = cliActor(this.name, parsed, io.env);
    const tenant = stringOption(parsed, 'tenant');
    const job = await withInbox(this.name, parsed, io, async (inbox) => {
      let started: RecoveryJob;
      try {
        started = await inbox.admin.recoveries.start({
          endpoint,
          since,
          until,
          ...(tenant === undefined ? {} : { tenant }),
          dryRun,
          ...(ratePerSecond === undefined ? {} : { ratePerSecond }),
          actor,
        });
      } catch (error) {
        throw error instanceof WebhookRecoveryError
          ? new CliUsageError(error.message, this.name)
          : error;
      }
      if (!dryRun && !flagOption(parsed, 'wait')) {
        return started;
      }
      io.stderr.write(
        `Recovery ${started.id} stored; waiting for an instance of the app to run it…\n`,
      );
      return waitForJob(io, started.id, watchRecovery(inbox));
    });
    if (flagOption(parsed, 'json')) {
      printJson(io, job);
      return job.status === 'failed' ? EXIT_FAILURE : EXIT_OK;
    }
    if (job.status === 'running') {
      printLines(io, [
        `Recovery ${safeText(job.id)} of "${safeText(endpoint)}" stored: ${since.toISOString()} to ${until.toISOString()}.`,
        RECOVERY_NOTE,
        `Follow it: ${CLI_NAME} recoveries show ${safeText(job.id)}`,
        `Stop it:   ${CLI_NAME} recoveries cancel ${safeText(job.id)}`,
      ]);
      return EXIT_OK;
    }
    printLines(io, [safeText(endOf(job))]);
    return job.status === 'failed' ? EXIT_FAILURE : EXIT_OK;
  },
};

/** `recoveries`: the recoveries, newest first. */
export const recoveriesCommand: CliCommand = {
  name: 'recoveries',
  summary: "recoveries from the providers' event logs, newest first, with their progress",
  maxPositionals: 0,
  options: { ...DATABASE_OPTIONS, limit: { type: 'string' } },
  help: `Usage: ${CLI_NAME} recoveries [--limit <n>] [--json]
       ${CLI_NAME} recoveries show <id> [--json]
       ${CLI_NAME} recoveries cancel <id> [--json]

Lists the recoveries ("events recover", POST recoveries on the admin routes), newest first:
the endpoint, how many events each has read and stored, its status (running, done, canceled
or failed), when it started and who started it.

${RECOVERY_NOTE}

Options:
  --limit <n>            at most n recoveries, 1 to 1000 (default 20)
${COMMON_HELP}

${DATABASE_HELP}`,
  async run(parsed, io) {
    const limit = integerOption(this.name, parsed, 'limit', 1, 1000);
    const jobs = await withInbox(this.name, parsed, io, ({ admin }) =>
      admin.recoveries.list(limit),
    );
    if (flagOption(parsed, 'json')) {
      printJson(io, jobs);
      return EXIT_OK;
    }
    if (jobs.length === 0) {
      printLines(io, ['No recoveries.']);
      return EXIT_OK;
    }
    const now = io.now();
    printLines(io, [
      ...table(
        ['ID', 'ENDPOINT', 'STATUS', 'PROGRESS', 'STARTED', 'BY'],
        jobs.map((job) => [
          job.id,
          job.endpoint,
          job.dryRun ? `${job.status} (dry run)` : job.status,
          progressOf(job),
          ago(now, job.createdAt),
          job.actor ?? '-',
        ]),
      ),
      '',
      `See one with: ${CLI_NAME} recoveries show <id>`,
    ]);
    return EXIT_OK;
  },
};

const noRecovery = (id: string) =>
  new CliFailure(`no recovery with id "${id}" (ids are listed by "recoveries")`);

/** `recoveries show <id>`: one recovery and its progress. */
export const recoveriesShowCommand: CliCommand = {
  name: 'recoveries show',
  summary: 'one recovery: its window, progress, status and who started it',
  maxPositionals: 1,
  options: { ...DATABASE_OPTIONS },
  help: `Usage: ${CLI_NAME} recoveries show <id> [--json]

Shows one recovery by its id: its status (running, and on which instance, or waiting for one;
done; canceled; failed and why), its endpoint and window, how many events it has read from the
log and stored, its rate, when it started and who started it, and why its last page failed if
it did (that page is read again).

${RECOVERY_NOTE}

Options:
${COMMON_HELP}

${DATABASE_HELP}`,
  async run(parsed, io) {
    const id = jobIdOf(this.name, 'recovery', parsed.positionals);
    const job = await withInbox(this.name, parsed, io, ({ admin }) =>
      admin.recoveries.recovery(id),
    );
    if (!job) {
      throw noRecovery(id);
    }
    if (flagOption(parsed, 'json')) {
      printJson(io, job);
      return EXIT_OK;
    }
    printLines(io, describeJob(job, io.now()));
    return EXIT_OK;
  },
};

/** `recoveries cancel <id>`: stops a running recovery. */
export const recoveriesCancelCommand: CliCommand = {
  name: 'recoveries cancel',
  summary: 'stop a running recovery',
  maxPositionals: 1,
  options: { ...DATABASE_OPTIONS },
  help: `Usage: ${CLI_NAME} recoveries cancel <id> [--json]

Cancels a running recovery: no page of the log is read after this. The events stored so far
stay stored (the app's workers run them). Fails with exit code 1 when there is no such recovery
or it is not running.

Options:
${COMMON_HELP}

${DATABASE_HELP}`,
  async run(parsed, io) {
    const id = jobIdOf(this.name, 'recovery', parsed.positionals);
    const { canceled, job } = await withInbox(this.name, parsed, io, async ({ admin }) => ({
      canceled: await admin.recoveries.cancel(id),
      job: await admin.recoveries.recovery(id),
    }));
    if (!job) {
      throw noRecovery(id);
    }
    if (!canceled) {
      throw new CliFailure(
        `recovery ${id} is ${job.status} already: only a running one can be canceled`,
      );
    }
    if (flagOption(parsed, 'json')) {
      printJson(io, job);
      return EXIT_OK;
    }
    printLines(io, [`Canceled recovery ${safeText(id)} after ${progressOf(job)}.`]);
    return EXIT_OK;
  },
};
