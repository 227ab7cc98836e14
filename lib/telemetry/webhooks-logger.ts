import { inspect } from 'node:util';

/**
 * A logger for one context, with the methods of Nest's `LoggerService`: what handlers get as
 * `ctx.logger`, and what the package writes its own lines through.
 */
export interface WebhooksLogger {
  log(message: unknown, ...params: unknown[]): void;
  warn(message: unknown, ...params: unknown[]): void;
  error(message: unknown, ...params: unknown[]): void;
  debug(message: unknown, ...params: unknown[]): void;
  verbose(message: unknown, ...params: unknown[]): void;
  fatal(message: unknown, ...params: unknown[]): void;
  /**
   * Whether a line of `level` would be written; when it says no, the package does not prepare
   * the line at all. Left out, every level is.
   */
  isLevelEnabled?(level: WebhooksLogLevel): boolean;
}

/** The levels of a {@link WebhooksLogger}, as Nest names them. */
export type WebhooksLogLevel = 'log' | 'warn' | 'error' | 'debug' | 'verbose' | 'fatal';

/** Where lines go: a logger per context. The Nest adapter gives Nest's `Logger`. */
export type WebhooksLoggerFactory = (context: string) => WebhooksLogger;

type Level = WebhooksLogLevel;

const STREAM_OF: Readonly<Record<Level, 'stdout' | 'stderr'>> = {
  log: 'stdout',
  debug: 'stdout',
  verbose: 'stdout',
  warn: 'stderr',
  error: 'stderr',
  fatal: 'stderr',
};

/**
 * One line per message, `time LEVEL [context] message`, objects as JSON: the default where no
 * framework logger was chosen (a plain Express app without a `logger` option).
 */
export function consoleLoggerFactory(context: string): WebhooksLogger {
  const write =
    (level: Level) =>
    (message: unknown, ...params: unknown[]): void => {
      const text = [message, ...params].map(textOf).join(' ');
      process[STREAM_OF[level]].write(
        `${new Date().toISOString()} ${level.toUpperCase()} [${context}] ${text}\n`,
      );
    };
  return {
    log: write('log'),
    warn: write('warn'),
    error: write('error'),
    debug: write('debug'),
    verbose: write('verbose'),
    fatal: write('fatal'),
  };
}

function textOf(value: unknown): string {
  if (typeof value === 'string') {
    return value;
  }
  if (value instanceof Error) {
    return value.stack ?? `${value.name}: ${value.message}`;
  }
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return inspect(value, { depth: 4, breakLength: Infinity });
  }
}

let current: WebhooksLoggerFactory = consoleLoggerFactory;

/**
 * Chooses where the package's lines go in this process (like Nest's own logger, one choice per
 * process): the Nest module chooses Nest's `Logger`, the Express router the `logger` option.
 */
export function useWebhooksLogger(factory: WebhooksLoggerFactory): void {
  current = factory;
}

/** The logger factory in use. */
export function webhooksLoggerFactory(): WebhooksLoggerFactory {
  return current;
}

/** A logger class of Nest's shape: made per context, with a static level check. */
export interface ContextLoggerClass {
  new (context: string): WebhooksLogger;
  isLevelEnabled(level: WebhooksLogLevel): boolean;
}

/**
 * Sends the package's lines through a logger class of Nest's shape, so `app.useLogger()`
 * applies, levels included: a line of a level the app turned off is not prepared.
 */
export function useContextLoggerClass(Logger: ContextLoggerClass): void {
  useWebhooksLogger((context) =>
    Object.assign(new Logger(context), {
      isLevelEnabled: (level: WebhooksLogLevel) => Logger.isLevelEnabled(level),
    }),
  );
}
