import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseCommand } from './arguments';
import { CLI_NAME, CliCommand } from './cli-command';
import { CliFailure, CliUsageError, EXIT_FAILURE, EXIT_OK, EXIT_USAGE } from './cli-errors';
import { CliIo, printLines, processIo } from './cli-io';
import { safeText } from '../telemetry/safe-text';
import {
  backfillsCancelCommand,
  backfillsCommand,
  backfillsShowCommand,
  eventsBackfillCommand,
} from './commands/backfills.command';
import { eventsDiscardCommand } from './commands/events-discard.command';
import { eventsGroupsCommand } from './commands/events-groups.command';
import { eventsReplayCommand } from './commands/events-replay.command';
import { eventsShowCommand } from './commands/events-show.command';
import { eventsListCommand, eventsPurgeCommand } from './commands/events.command';
import { pauseCommand, pausesCommand, resumeCommand } from './commands/pause.command';
import {
  replaysCancelCommand,
  replaysCommand,
  replaysShowCommand,
} from './commands/replays.command';
import {
  eventsRecoverCommand,
  recoveriesCancelCommand,
  recoveriesCommand,
  recoveriesShowCommand,
} from './commands/recoveries.command';
import { migrateCommand } from './commands/migrate.command';
import { reconcileCommand } from './commands/reconcile.command';
import { retentionRunCommand } from './commands/retention.command';
import { sendCommand, signCommand } from './commands/sign.command';
import { statsCommand } from './commands/stats.command';

/** Every command, in the order the help lists them. */
export const CLI_COMMANDS: readonly CliCommand[] = [
  eventsListCommand,
  eventsShowCommand,
  eventsGroupsCommand,
  eventsReplayCommand,
  eventsDiscardCommand,
  eventsPurgeCommand,
  eventsRecoverCommand,
  eventsBackfillCommand,
  replaysCommand,
  replaysShowCommand,
  replaysCancelCommand,
  recoveriesCommand,
  recoveriesShowCommand,
  recoveriesCancelCommand,
  backfillsCommand,
  backfillsShowCommand,
  backfillsCancelCommand,
  pauseCommand,
  resumeCommand,
  pausesCommand,
  statsCommand,
  retentionRunCommand,
  migrateCommand,
  signCommand,
  sendCommand,
  reconcileCommand,
];

function generalHelp(): string {
  const width = Math.max(...CLI_COMMANDS.map((command) => command.name.length));
  return `Usage: ${CLI_NAME} <command> [options]

Looks after the payment-webhook inbox of a NestJS app from the command line, on the app's own
database, and signs and sends test deliveries for every supported provider.

Commands:
${CLI_COMMANDS.map((command) => `  ${command.name.padEnd(width)}  ${command.summary}`).join('\n')}

Run "${CLI_NAME} <command> --help" for a command's options. Every command takes --json.
Database commands take --database-url <postgres://…> or --sqlite <file>, or read DATABASE_URL
(postgres://… or sqlite:<file>).

Commands that change the inbox (events replay, events discard, events backfill, pause) keep
who made the change in the events' history: --actor <name>, else $WEBHOOKS_ACTOR, else
<os user>@cli.

"events replay --background" only stores the replay: the app's running instances carry it
out (follow it with "replays show <id>"), so it waits while no instance of the app is up.
"events recover" and "events backfill" only store theirs too ("recoveries show <id>",
"backfills show <id>"); a backfill waits for an instance of the app that has its handler.

Exit codes: 0 done, 1 failed (database, network, a non-2xx answer, no such event),
2 the command line is wrong (unknown option, missing or invalid value), 130 stopped by Ctrl-C.`;
}

function groupHelp(group: string, commands: readonly CliCommand[]): string {
  const width = Math.max(...commands.map((command) => command.name.length));
  return `Usage: ${CLI_NAME} ${group} <${commands
    .map((command) => command.name.slice(group.length + 1))
    .join('|')}> [options]

${commands.map((command) => `  ${command.name.padEnd(width)}  ${command.summary}`).join('\n')}

Run "${CLI_NAME} ${group} <command> --help" for a command's options.`;
}

function version(): string {
  try {
    const manifest = JSON.parse(
      readFileSync(join(__dirname, '..', '..', 'package.json'), 'utf8'),
    ) as { version?: string };
    return manifest.version ?? 'unknown';
  } catch {
    return 'unknown';
  }
}

/** The command `args` start with, and the arguments after its name. */
function findCommand(args: readonly string[]): { command: CliCommand; rest: string[] } {
  const [first, second] = args;
  const pair = CLI_COMMANDS.find((command) => command.name === `${first} ${second}`);
  if (pair) {
    return { command: pair, rest: args.slice(2) };
  }
  const single = CLI_COMMANDS.find((command) => command.name === first);
  if (single) {
    return { command: single, rest: args.slice(1) };
  }
  const group = CLI_COMMANDS.filter((command) => command.name.startsWith(`${first} `));
  if (group.length > 0) {
    const names = group.map((command) => command.name.slice(first.length + 1));
    throw new CliUsageError(
      second === undefined || second.startsWith('-')
        ? `"${first}" needs a subcommand: ${names.join(', ')}`
        : `unknown subcommand "${first} ${second}": ${names.join(', ')}`,
    );
  }
  throw new CliUsageError(`unknown command "${first}" (run "${CLI_NAME} --help" for the list)`);
}

/** One line, whatever the error's message holds, safe for the terminal. */
function oneLine(message: string): string {
  return safeText(message.replace(/\s*\n\s*/g, ' ').trim());
}

/**
 * Runs the CLI with `args` (the arguments after the program name).
 * @returns the exit code: 0 done, 1 failed, 2 the command line is wrong.
 * @example
 * process.exitCode = await runCli(['events', 'list', '--status', 'dead', '--json']);
 */
export async function runCli(args: readonly string[], io: CliIo = processIo()): Promise<number> {
  if (args.length === 0) {
    io.stderr.write(`${generalHelp()}\n`);
    return EXIT_USAGE;
  }
  const [first] = args;
  if (first === '--help' || first === '-h' || (first === 'help' && args.length === 1)) {
    printLines(io, [generalHelp()]);
    return EXIT_OK;
  }
  if (first === '--version' || first === '-v') {
    printLines(io, [version()]);
    return EXIT_OK;
  }
  const group = CLI_COMMANDS.filter((entry) => entry.name.startsWith(`${first} `));
  // NOTE: a group that is a command too ("replays") has help of its own, naming its subcommands.
  const alone = CLI_COMMANDS.some((entry) => entry.name === first);
  if (group.length > 0 && !alone && (args[1] === '--help' || args[1] === '-h')) {
    printLines(io, [groupHelp(first, group)]);
    return EXIT_OK;
  }
  let command: CliCommand | undefined;
  try {
    if (first === 'help') {
      command = findCommand(args.slice(1)).command;
      printLines(io, [command.help]);
      return EXIT_OK;
    }
    const found = findCommand(args);
    command = found.command;
    const parsed = parseCommand(command.name, found.rest, command.options, command.maxPositionals);
    if (parsed.values.help) {
      printLines(io, [command.help]);
      return EXIT_OK;
    }
    return await command.run(parsed, io);
  } catch (error) {
    if (error instanceof CliUsageError) {
      const name = error.command ?? command?.name;
      const hint = name === undefined ? `${CLI_NAME} --help` : `${CLI_NAME} ${name} --help`;
      io.stderr.write(`${CLI_NAME}: error: ${oneLine(error.message)} (see "${hint}")\n`);
      return EXIT_USAGE;
    }
    const message = error instanceof Error ? error.message : String(error);
    const prefix = error instanceof CliFailure ? '' : `${(error as Error)?.name ?? 'Error'}: `;
    io.stderr.write(`${CLI_NAME}: error: ${prefix}${oneLine(message)}\n`);
    return EXIT_FAILURE;
  }
}
