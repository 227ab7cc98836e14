import { parseArgs } from 'node:util';
import { checkFilterTime, WebhookFilterError } from '../admin/event-filter-rules';
import { CliUsageError } from './cli-errors';

/** One option of a command, as `node:util` `parseArgs` takes it. */
export interface OptionSpec {
  readonly type: 'string' | 'boolean';
  readonly short?: string;
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
  readonly values: Readonly<Record<string, string | boolean | undefined>>;
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

const AGE = /^(\d+(?:\.\d+)?)(s|m|min|h|d|w)?$/;
const UNIT_MS: Readonly<Record<string, number>> = {
  s: 1000,
  m: 60_000,
  min: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 604_800_000,
};

/**
 * A point in time given as an age (`30d`, `12h`, `15m`; a bare number is days) before `now`,
 * or as an ISO 8601 time, from 1970 to 9999.
 * @throws CliUsageError naming the option and both accepted forms, or the range.
 * @example parseTime('events list', '--since', '24h', now) // now minus 24 hours
 */
export function parseTime(command: string, option: string, text: string, now: Date): Date {
  const trimmed = text.trim();
  const age = AGE.exec(trimmed);
  if (age) {
    return inRange(command, option, text, now.getTime() - Number(age[1]) * UNIT_MS[age[2] ?? 'd']);
  }
  if (/^\d{4}-\d{2}-\d{2}/.test(trimmed)) {
    const time = new Date(trimmed);
    if (!Number.isNaN(time.getTime())) {
      return inRange(command, option, text, time.getTime());
    }
  }
  throw new CliUsageError(
    `${option} must be an age such as 30d, 12h or 15m (a bare number is days), or an ISO 8601 ` +
      `time such as 2025-01-31T12:00:00Z (got "${text}")`,
    command,
  );
}

/** The time `ms`, refused as a usage error when it lies outside 1970..9999. */
function inRange(command: string, option: string, text: string, ms: number): Date {
  try {
    return checkFilterTime(option, new Date(ms), text);
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
