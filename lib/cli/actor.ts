import { userInfo } from 'node:os';
import { OptionSpecs, ParsedCommand, stringOption } from './arguments';
import { CliUsageError } from './cli-errors';

/** The variable naming who runs the CLI, when `--actor` does not. */
export const ACTOR_VARIABLE = 'WEBHOOKS_ACTOR';

/** Longest actor the history keeps (its column's length). */
const MAX_ACTOR_LENGTH = 128;

/** The option of the commands that change the inbox. */
export const ACTOR_OPTIONS: OptionSpecs = { actor: { type: 'string' } };

/** `--actor` as the help of those commands lists it. */
export const ACTOR_HELP = `  --actor <name>         who makes the change, kept in the events' history (default:
                         $${ACTOR_VARIABLE}, else <os user>@cli)`;

/** The user the process runs as; `USER` when the system has no name for it (a bare container). */
function osUser(env: Readonly<Record<string, string | undefined>>): string {
  try {
    return userInfo().username;
  } catch {
    return env.USER ?? env.USERNAME ?? 'unknown';
  }
}

/**
 * Who makes a change: `--actor`, else `$WEBHOOKS_ACTOR`, else `<os user>@cli`.
 * @throws CliUsageError when the name given is empty or longer than the history keeps.
 * @example cliActor('pause', parsed, io.env) // 'alice@cli'
 */
export function cliActor(
  command: string,
  parsed: ParsedCommand,
  env: Readonly<Record<string, string | undefined>>,
): string {
  const given = stringOption(parsed, 'actor');
  const source = given === undefined ? `$${ACTOR_VARIABLE}` : '--actor';
  // NOTE: an empty variable (`WEBHOOKS_ACTOR=`) counts as unset, as shells treat it.
  const text = given ?? (env[ACTOR_VARIABLE] || undefined);
  if (text === undefined) {
    return `${osUser(env)}@cli`.slice(0, MAX_ACTOR_LENGTH);
  }
  const actor = text.trim();
  if (actor === '' || actor.length > MAX_ACTOR_LENGTH) {
    throw new CliUsageError(
      `${source} must be a name of 1 to ${MAX_ACTOR_LENGTH} characters (got ${actor.length})`,
      command,
    );
  }
  return actor;
}
