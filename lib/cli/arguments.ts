import { parseArgs } from 'node:util';
import { parseFilterTime, WebhookFilterError } from '../admin/event-filter-rules';
import { CliUsageError } from './cli-errors';

/** One option of a command, as `node:util` `parseArgs` takes it. */
export interface OptionSpec {
  readonly type: 'string' | 'boolean';
  readonly short?: string;
  /** The option may be given more than once (`--type a --type b`); read it with `listOption()`. */
  readonly multiple?: boolean;
}

/** A command's options by long name. */
export type OptionSpecs = Readonly<Record<string, OptionSpec>>;

/** Options every command takes. */
export const COMMON_OPTIONS: OptionSpecs = {
  help: { type: 'boolean', short: 'h' },
  json: { type: 'boolean' },
};

/** Options of the commands that open the database. */
export const DATABASE_OPTIONS: OptionSpecs = {
  'database-url': { type: 'string' },
  sqlite: { type: 'string' },
};

/** A parsed command line: option values by long name, and the positional arguments. */
export interface ParsedCommand {
  readonly values: Readonly<Record<string, string | boolean | string[] | undefined>>;
  readonly positionals: readonly string[];
}

/**
 * Parses a command's arguments strictly: an unknown option, a missing value or an extra
 * argument is a usage error naming the command.
 * @throws CliUsageError
 */
export function parseCommand(
  command: string,
  args: readonly string[],
  options: OptionSpecs,
  maxPositionals: number,
): ParsedCommand {
  let parsed: ParsedCommand;
  try {
    const result = parseArgs({
      args: [...args],
      options: { ...COMMON_OPTIONS, ...options },
      allowPositionals: true,
      strict: true,
    });
    parsed = {
      values: result.values as ParsedCommand['values'],
      positionals: result.positionals,
    };
  } catch (error) {
    throw new CliUsageError(describeParseError(error), command);
  }
  if (!parsed.values.help && parsed.positionals.length > maxPositionals) {
    throw new CliUsageError(`unexpected argument "${parsed.positionals[maxPositionals]}"`, command);
  }
  return parsed;
}

function describeParseError(error: unknown): string {
  const { code, message } = error as { code?: string; message: string };
  const option = /'(-[^' ]+)/.exec(message)?.[1];
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && option) {
    return `unknown option ${option}`;
  }
  if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE' && option) {
    return message.includes('argument missing')
      ? `${option} needs a value`
      : `${option} takes no value`;
  }
  return message;
}

/** A string option's value, or undefined. */
export function stringOption(parsed: ParsedCommand, name: string): string | undefined {
  const value = parsed.values[name];
  return typeof value === 'string' ? value : undefined;
}

/**
 * The values of a string option that may be given more than once, each also a comma-separated
 * list, trimmed, without empty or repeated ones: `--type a,b --type c` is `['a', 'b', 'c']`.
 * @throws CliUsageError when the option was given with nothing in it.
 */
export function listOption(command: string, parsed: ParsedCommand, name: string): string[] {
  const value = parsed.values[name];
  const given = Array.isArray(value) ? value : typeof value === 'string' ? [value] : [];
  const items = [
    ...new Set(
      given.flatMap((text) =>
        text
          .split(',')
          .map((item) => item.trim())
          .filter((item) => item !== ''),
      ),
    ),
  ];
  if (given.length > 0 && items.length === 0) {
    throw new CliUsageError(`--${name} needs a value`, command);
  }
  return items;
}

/** Whether a boolean option was given. */
export function flagOption(parsed: ParsedCommand, name: string): boolean {
  return parsed.values[name] === true;
}

/**
 * An integer option within bounds.
 * @throws CliUsageError naming the option and the bounds.
 */
export function integerOption(
  command: string,
  parsed: ParsedCommand,
  name: string,
  min: number,
  max = Number.MAX_SAFE_INTEGER,
): number | undefined {
  const text = stringOption(parsed, name);
  if (text === undefined) {
    return undefined;
  }
  const value = /^-?\d+$/.test(text.trim()) ? Number(text) : Number.NaN;
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    const range = max === Number.MAX_SAFE_INTEGER ? `at least ${min}` : `from ${min} to ${max}`;
    throw new CliUsageError(`--${name} must be an integer ${range} (got "${text}")`, command);
  }
  return value;
}

/**
 * A point in time given as an age (`30d`, `12h`, `15m`; a bare number is days) before `now`,
 * or as an ISO 8601 time (a calendar day that exists, `T` between date and time), from 1970 to
 * 9999: the rules of the admin routes' `since` and `until` (`parseFilterTime()`).
 * @throws CliUsageError naming the option and both accepted forms, or the range.
 * @example parseTime('events list', '--since', '24h', now) // now minus 24 hours
 */
export function parseTime(command: string, option: string, text: string, now: Date): Date {
  try {
    return parseFilterTime(option, text, now);
  } catch (error) {
    throw error instanceof WebhookFilterError ? new CliUsageError(error.message, command) : error;
  }
}

/**
 * A comma-separated list of statuses, each one of `allowed`.
 * @throws CliUsageError listing the allowed statuses.
 */
export function parseStatuses<T extends string>(
  command: string,
  option: string,
  text: string,
  allowed: readonly T[],
): T[] {
  const statuses = [
    ...new Set(
      text
        .split(',')
        .map((status) => status.trim())
        .filter((status) => status !== ''),
    ),
  ];
  const invalid = statuses.filter((status) => !allowed.includes(status as T));
  if (statuses.length === 0 || invalid.length > 0) {
    throw new CliUsageError(
      `${option} takes ${allowed.join(', ')} (comma-separated); got "${text}"`,
      command,
    );
  }
  return statuses as T[];
}
