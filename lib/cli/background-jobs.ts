import { safeText } from '../telemetry/safe-text';
import { ParsedCommand, stringOption } from './arguments';
import { CliFailure, CliUsageError } from './cli-errors';
import { CliIo, describeDuration } from './cli-io';

/**
 * What the commands about jobs the app's instances run in the background (recoveries,
 * backfills) share: waiting for one to end, and showing one.
 */

/** How often a waiting command looks at its job. */
const WAIT_POLL_MS = 1000;

/** A job the app's instances run, as far as waiting for it goes. */
export interface BackgroundJob {
  readonly id: string;
  readonly status: 'running' | 'done' | 'canceled' | 'failed';
}

/** How a waiting command reads one kind of job and says how far it has got. */
export interface JobWatch<T extends BackgroundJob> {
  /** `recovery`, `backfill`: what the job is called in messages. */
  readonly noun: string;
  /** The job as stored now; null when there is none. */
  read(id: string): Promise<T | null>;
  /** One line on how the job stands, printed on stderr while it runs. */
  progress(job: T): string;
}

/** `5 min 2 s ago`: how long ago `time` was (never in the future). */
export function ago(now: Date, time: Date): string {
  return `${describeDuration(Math.max(0, now.getTime() - time.getTime()))} ago`;
}

/**
 * Polls a job until it is no longer running, printing its progress on stderr; returns it still
 * running on Ctrl-C.
 * @throws CliFailure when the job is gone (deleted meanwhile).
 */
export async function waitForJob<T extends BackgroundJob>(
  io: CliIo,
  id: string,
  watch: JobWatch<T>,
): Promise<T> {
  let interrupted = false;
  const stop = io.onInterrupt?.(() => {
    interrupted = true;
  });
  try {
    for (;;) {
      const job = await watch.read(id);
      if (!job) {
        throw new CliFailure(`${watch.noun} ${id} is gone`);
      }
      if (job.status !== 'running' || interrupted) {
        return job;
      }
      io.stderr.write(`${watch.progress(job)}\n`);
      await new Promise((resolve) => setTimeout(resolve, WAIT_POLL_MS));
    }
  } finally {
    stop?.();
  }
}

/**
 * A job as `… show <id>` prints it: a title, then its fields as aligned `name  value` lines,
 * the values made safe for the terminal.
 */
export function describeFields(title: string, fields: readonly [string, string][]): string[] {
  const width = Math.max(...fields.map(([name]) => name.length));
  return [title, ...fields.map(([name, value]) => `  ${name.padEnd(width)}  ${safeText(value)}`)];
}

/**
 * A string option the command cannot go without.
 * @throws CliUsageError when it is missing or blank.
 */
export function requiredOption(command: string, parsed: ParsedCommand, name: string): string {
  const value = stringOption(parsed, name);
  if (value === undefined || value.trim() === '') {
    throw new CliUsageError(`--${name} is required`, command);
  }
  return value;
}

/**
 * The id a `recoveries …` or `backfills …` subcommand was given.
 * @throws CliUsageError when there is none.
 */
export function jobIdOf(command: string, noun: string, positionals: readonly string[]): string {
  const id = positionals[0];
  if (id === undefined || id.trim() === '') {
    throw new CliUsageError(`give the id of the ${noun}: ${command} <id>`, command);
  }
  return id;
}
