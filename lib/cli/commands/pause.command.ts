import { DispatchPause, DispatchPauseScope, describeScope } from '../../admin/webhook-admin';
import { safeText } from '../../telemetry/safe-text';
import { ACTOR_HELP, ACTOR_OPTIONS, cliActor } from '../actor';
import { DATABASE_OPTIONS, flagOption, ParsedCommand, stringOption } from '../arguments';
import { CLI_NAME, CliCommand, COMMON_HELP, DATABASE_HELP } from '../cli-command';
import { CliFailure, CliUsageError, EXIT_OK } from '../cli-errors';
import { describeDuration, printJson, printLines, shellWord, table } from '../cli-io';
import { withInbox } from './events.command';

/** Every endpoint, or every handler, as a pause stores it. */
const EVERY = '*';

const SCOPE_OPTIONS = {
  endpoint: { type: 'string' },
  handler: { type: 'string' },
  all: { type: 'boolean' },
} as const;

const SCOPE_HELP = `  --endpoint <name>      one endpoint's events
  --handler <key>        one handler (ClassName.method), on every endpoint or on --endpoint
  --all                  every endpoint and every handler (required when neither is given)`;

/**
 * The scope named by `--endpoint` and `--handler`, or by `--all` alone.
 * @throws CliUsageError when neither and no `--all` is given, or `--all` with either.
 */
function scopeOf(command: string, parsed: ParsedCommand): DispatchPauseScope {
  const scope = {
    endpoint: stringOption(parsed, 'endpoint'),
    handler: stringOption(parsed, 'handler'),
  };
  for (const [option, value] of Object.entries(scope)) {
    if (value !== undefined && value.trim() === '') {
      throw new CliUsageError(`--${option} needs a value`, command);
    }
  }
  const all = flagOption(parsed, 'all');
  const named = scope.endpoint !== undefined || scope.handler !== undefined;
  if (!named && !all) {
    throw new CliUsageError(
      'give --endpoint <name>, --handler <key> or both; --all for every endpoint and handler',
      command,
    );
  }
  if (named && all) {
    throw new CliUsageError('give --endpoint/--handler or --all, not both', command);
  }
  return scope;
}

/** The options that name `scope` again, for a command to copy: `--endpoint stripe`. */
function scopeFlags(scope: DispatchPauseScope): string {
  const flags = [
    ...(scope.endpoint && scope.endpoint !== EVERY
      ? [`--endpoint ${shellWord(scope.endpoint)}`]
      : []),
    ...(scope.handler && scope.handler !== EVERY ? [`--handler ${shellWord(scope.handler)}`] : []),
  ];
  return flags.length === 0 ? '--all' : flags.join(' ');
}

const scopeJson = (scope: DispatchPauseScope) => ({
  endpoint: scope.endpoint ?? EVERY,
  handler: scope.handler ?? EVERY,
});

/** `pause`: holds dispatch of an endpoint's events, of one handler, or of everything. */
export const pauseCommand: CliCommand = {
  name: 'pause',
  summary: "hold dispatch of an endpoint's events or of one handler",
  maxPositionals: 0,
  options: { ...DATABASE_OPTIONS, ...SCOPE_OPTIONS, ...ACTOR_OPTIONS, reason: { type: 'string' } },
  help: `Usage: ${CLI_NAME} pause [--endpoint <name>] [--handler <key>] [--reason <text>] [--json]
       ${CLI_NAME} pause --all [--reason <text>] [--json]

Pauses dispatch: the handlers held do not run until "resume" with the same options, while
deliveries are still verified, stored and answered, so providers stop nothing and no attempt
is spent. Every instance of the app sees it within a second, and it outlives restarts. Events
held show "paused" in "events list" and "events show". Use it while what a handler calls (an
ERP, a database) is down.

The names are checked, so a typo pauses nothing: an endpoint or handler the database has no
record of (no stored event, handler run, failed attempt or pause names it) fails with exit
code 1, naming those it has and the nearest. The CLI reads the app's database, not its
configuration: one that has not run yet is paused through the app's admin routes.

Options:
${SCOPE_HELP}
  --reason <text>        why, shown by "pauses"
${ACTOR_HELP}
${COMMON_HELP}

${DATABASE_HELP}

Examples:
  ${CLI_NAME} pause --handler OrdersHandlers.onPaid --reason 'ERP down, INC-2231'
  ${CLI_NAME} pause --endpoint stripe`,
  async run(parsed, io) {
    const scope = scopeOf(this.name, parsed);
    const actor = cliActor(this.name, parsed, io.env);
    const reason = stringOption(parsed, 'reason')?.trim() || undefined;
    const paused = await withInbox(this.name, parsed, io, ({ admin }) =>
      admin.pause(scope, { actor, reason }),
    );
    if (flagOption(parsed, 'json')) {
      printJson(io, { ...scopeJson(scope), paused: true, alreadyPaused: !paused });
      return EXIT_OK;
    }
    printLines(io, [
      paused
        ? `Paused dispatch of ${safeText(describeScope(scope))}. Deliveries are still stored ` +
          'and answered; every instance holds the handlers within a second.'
        : `Dispatch of ${safeText(describeScope(scope))} was paused already.`,
      `Lift it with: ${CLI_NAME} resume ${scopeFlags(scope)}`,
    ]);
    return EXIT_OK;
  },
};

/** `resume`: lifts a pause; the events it held run again. */
export const resumeCommand: CliCommand = {
  name: 'resume',
  summary: 'lift a pause of dispatch; the events it held run',
  maxPositionals: 0,
  options: { ...DATABASE_OPTIONS, ...SCOPE_OPTIONS },
  help: `Usage: ${CLI_NAME} resume [--endpoint <name>] [--handler <key>] [--json]
       ${CLI_NAME} resume --all [--json]

Lifts the pause that "pause" made with the same options (see "pauses" for those in force); the
events it held fall due now and the app's workers run them. An event another pause still covers
stays held. Fails with exit code 1 when that exact pause is not in force, and when a name is
one the database has no record of (naming those it has). A pause in force can always be lifted,
whatever the app's configuration is now.

Options:
${SCOPE_HELP}
${COMMON_HELP}

${DATABASE_HELP}

Examples:
  ${CLI_NAME} resume --handler OrdersHandlers.onPaid`,
  async run(parsed, io) {
    const scope = scopeOf(this.name, parsed);
    const { woken, pauses } = await withInbox(this.name, parsed, io, async ({ admin }) => {
      const resumed = await admin.resume(scope);
      return { woken: resumed, pauses: resumed === null ? await admin.pauses() : [] };
    });
    if (woken === null) {
      const inForce = pauses.map((pause) => scopeFlags(pause)).join('; ');
      throw new CliFailure(
        `${describeScope(scope)} is not paused; ` +
          (pauses.length === 0 ? 'no pause is in force' : `the pauses in force: ${inForce}`),
      );
    }
    if (flagOption(parsed, 'json')) {
      printJson(io, { ...scopeJson(scope), resumed: true, woken });
      return EXIT_OK;
    }
    printLines(io, [
      `Resumed dispatch of ${safeText(describeScope(scope))}; ${woken} held event(s) run next.`,
    ]);
    return EXIT_OK;
  },
};

function pauseRows(pauses: readonly DispatchPause[], now: number): string[] {
  return table(
    ['ENDPOINT', 'HANDLER', 'SINCE', 'BY', 'REASON'],
    pauses.map((pause) => [
      pause.endpoint === EVERY ? '* (every)' : pause.endpoint,
      pause.handler === EVERY ? '* (every)' : pause.handler,
      `${pause.pausedAt.toISOString()} (${describeDuration(Math.max(0, now - pause.pausedAt.getTime()))} ago)`,
      pause.pausedBy ?? '-',
      pause.reason ?? '-',
    ]),
  );
}

/** `pauses`: the pauses of dispatch in force. */
export const pausesCommand: CliCommand = {
  name: 'pauses',
  summary: 'the pauses of dispatch in force',
  maxPositionals: 0,
  options: { ...DATABASE_OPTIONS },
  help: `Usage: ${CLI_NAME} pauses [--json]

Lists the pauses of dispatch in force, oldest first: what each holds (an endpoint, a handler,
or "*" for every one), since when, who paused it and why.

Options:
${COMMON_HELP}

${DATABASE_HELP}`,
  async run(parsed, io) {
    const pauses = await withInbox(this.name, parsed, io, ({ admin }) => admin.pauses());
    if (flagOption(parsed, 'json')) {
      printJson(io, pauses);
      return EXIT_OK;
    }
    if (pauses.length === 0) {
      printLines(io, ['Dispatch is not paused.']);
      return EXIT_OK;
    }
    printLines(io, [
      ...pauseRows(pauses, io.now().getTime()),
      '',
      `Lift one with "${CLI_NAME} resume" and its options, e.g. ${CLI_NAME} resume ${scopeFlags(pauses[0])}`,
    ]);
    return EXIT_OK;
  },
};
