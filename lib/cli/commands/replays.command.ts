import type { ReplayJob } from '../../admin/webhook-admin';
import { safeText } from '../../telemetry/safe-text';
import { DATABASE_OPTIONS, flagOption, integerOption } from '../arguments';
import { CLI_NAME, CliCommand, COMMON_HELP, DATABASE_HELP } from '../cli-command';
import { CliFailure, CliUsageError, EXIT_OK } from '../cli-errors';
import { describeDuration, printJson, printLines, table } from '../cli-io';
import { describeReplayFilter } from '../event-timeline';
import { withInbox } from './events.command';

/** Who runs a replay in the background, as every command about them says it. */
export const BACKGROUND_NOTE = `A replay in the background is run by the app's running instances (the first one to look
takes it, within a second); the CLI only stores it, so it waits while no instance of the app
is up, and carries on from where it was after a restart.`;

/** The commands that follow and stop the replay `id`, to copy. */
export function followLines(id: string): string[] {
  return [
    `Follow it: ${CLI_NAME} replays show ${safeText(id)}`,
    `Stop it:   ${CLI_NAME} replays cancel ${safeText(id)}`,
  ];
}

const ago = (now: Date, time: Date) =>
  `${describeDuration(Math.max(0, now.getTime() - time.getTime()))} ago`;

/** `12/24 (50%)`: how far a replay has got. */
function progressOf(job: ReplayJob): string {
  const share = job.total === 0 ? 100 : Math.floor((job.replayed / job.total) * 100);
  return `${job.replayed}/${job.total} (${share}%)`;
}

const rateOf = (job: ReplayJob) =>
  job.ratePerSecond === null ? 'no limit' : `${job.ratePerSecond}/s`;

/** What a replay is doing, as `replays show` says it. */
function stateOf(job: ReplayJob): string {
  if (job.status !== 'running') {
    return job.status;
  }
  return job.lockedBy === null
    ? 'running: waiting for an instance of the app to take it (is one up?)'
    : `running: instance ${job.lockedBy} is putting events back`;
}

function describeJob(job: ReplayJob, now: Date): string[] {
  const by = job.actor === null ? '' : ` by ${job.actor}`;
  const finished =
    job.finishedAt === null
      ? '-'
      : `${job.finishedAt.toISOString()} (after ${describeDuration(
          job.finishedAt.getTime() - job.createdAt.getTime(),
        )})`;
  const fields: [string, string][] = [
    ['status', stateOf(job)],
    ['progress', `${progressOf(job)} put back`],
    ['rate', job.ratePerSecond === null ? 'no limit' : `at most ${job.ratePerSecond} a second`],
    ['filter', describeReplayFilter(JSON.stringify(job.filter))],
    ['started', `${job.createdAt.toISOString()} (${ago(now, job.createdAt)})${by}`],
    ['updated', `${job.updatedAt.toISOString()} (${ago(now, job.updatedAt)})`],
    ['finished', finished],
    ['error', job.error ?? '-'],
  ];
  const width = Math.max(...fields.map(([name]) => name.length));
  return [
    `Replay ${safeText(job.id)}`,
    ...fields.map(([name, value]) => `  ${name.padEnd(width)}  ${safeText(value)}`),
  ];
}

/** `replays`: the replays in the background, newest first. */
export const replaysCommand: CliCommand = {
  name: 'replays',
  summary: 'replays in the background, newest first, with their progress',
  maxPositionals: 0,
  options: { ...DATABASE_OPTIONS, limit: { type: 'string' } },
  help: `Usage: ${CLI_NAME} replays [--limit <n>] [--json]
       ${CLI_NAME} replays show <id> [--json]
       ${CLI_NAME} replays cancel <id> [--json]

Lists the replays in the background ("events replay --background", POST replays on the admin
routes), newest first: how many events each has put back of those it matched, its rate, its
status (running, done or canceled), when it started and who started it.

${BACKGROUND_NOTE}

Options:
  --limit <n>            at most n replays, 1 to 1000 (default 20)
${COMMON_HELP}

${DATABASE_HELP}

Examples:
  ${CLI_NAME} replays
  ${CLI_NAME} replays show 0193a7c4-5b1e-7c3d-9f0a-2b4c6d8e0f12
  ${CLI_NAME} replays cancel 0193a7c4-5b1e-7c3d-9f0a-2b4c6d8e0f12`,
  async run(parsed, io) {
    const limit = integerOption(this.name, parsed, 'limit', 1, 1000);
    const jobs = await withInbox(this.name, parsed, io, ({ admin }) => admin.replayJobs(limit));
    if (flagOption(parsed, 'json')) {
      printJson(io, jobs);
      return EXIT_OK;
    }
    if (jobs.length === 0) {
      printLines(io, ['No replays in the background.']);
      return EXIT_OK;
    }
    const now = io.now();
    printLines(io, [
      ...table(
        ['ID', 'STATUS', 'PROGRESS', 'RATE', 'STARTED', 'BY'],
        jobs.map((job) => [
          job.id,
          job.status,
          progressOf(job),
          rateOf(job),
          ago(now, job.createdAt),
          job.actor ?? '-',
        ]),
      ),
      '',
      `See one with: ${CLI_NAME} replays show <id>`,
    ]);
    return EXIT_OK;
  },
};

/** The id a `replays` subcommand was given. */
function replayId(command: string, positionals: readonly string[]): string {
  const id = positionals[0];
  if (id === undefined || id.trim() === '') {
    throw new CliUsageError(`give the id of the replay: ${command} <id>`, command);
  }
  return id;
}

const noReplay = (id: string) =>
  new CliFailure(`no replay with id "${id}" (ids are listed by "replays")`);

/** `replays show <id>`: one replay in the background and its progress. */
export const replaysShowCommand: CliCommand = {
  name: 'replays show',
  summary: 'one replay in the background: its progress, rate, status and who started it',
  maxPositionals: 1,
  options: { ...DATABASE_OPTIONS },
  help: `Usage: ${CLI_NAME} replays show <id> [--json]

Shows one replay in the background by its id (printed by "events replay --background", listed
by "replays"): its status (running, and on which instance of the app, or waiting for one; done;
canceled), how many events it has put back of those it matched, its rate, its filter, when it
started and who started it, when it finished, and why its last batch failed if it did (that
batch is tried again). Run it again to follow the progress.

${BACKGROUND_NOTE}

Options:
${COMMON_HELP}

${DATABASE_HELP}`,
  async run(parsed, io) {
    const id = replayId(this.name, parsed.positionals);
    const job = await withInbox(this.name, parsed, io, ({ admin }) => admin.replayJob(id));
    if (!job) {
      throw noReplay(id);
    }
    if (flagOption(parsed, 'json')) {
      printJson(io, job);
      return EXIT_OK;
    }
    printLines(io, [
      ...describeJob(job, io.now()),
      ...(job.status === 'running'
        ? ['', `Stop it with: ${CLI_NAME} replays cancel ${safeText(job.id)}`]
        : []),
    ]);
    return EXIT_OK;
  },
};

/** `replays cancel <id>`: stops a running replay in the background. */
export const replaysCancelCommand: CliCommand = {
  name: 'replays cancel',
  summary: 'stop a running replay in the background',
  maxPositionals: 1,
  options: { ...DATABASE_OPTIONS },
  help: `Usage: ${CLI_NAME} replays cancel <id> [--json]

Cancels a running replay in the background: no batch starts after this, and a batch under way
on an instance is its last. The events put back so far stay put back (the app's workers run
them); the others matching its filter are left as they were. Fails with exit code 1 when there
is no such replay or it is not running (done or canceled already).

Options:
${COMMON_HELP}

${DATABASE_HELP}

Examples:
  ${CLI_NAME} replays cancel 0193a7c4-5b1e-7c3d-9f0a-2b4c6d8e0f12`,
  async run(parsed, io) {
    const id = replayId(this.name, parsed.positionals);
    const { canceled, job } = await withInbox(this.name, parsed, io, async ({ admin }) => ({
      canceled: await admin.cancelReplay(id),
      job: await admin.replayJob(id),
    }));
    if (!job) {
      throw noReplay(id);
    }
    if (!canceled) {
      throw new CliFailure(
        `replay ${id} is ${job.status} already (${job.replayed}/${job.total} put back): only a ` +
          'running replay can be canceled',
      );
    }
    if (flagOption(parsed, 'json')) {
      printJson(io, job);
      return EXIT_OK;
    }
    printLines(io, [
      `Canceled replay ${safeText(id)} after ${job.replayed} of ${job.total} event(s) were put ` +
        "back; the app's workers run those. The others matching its filter were left as they were.",
    ]);
    return EXIT_OK;
  },
};
