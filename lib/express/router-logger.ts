import { WebhookConfigurationError } from '../core/webhook-errors';
import {
  consoleLoggerFactory,
  WebhooksLogger,
  WebhooksLoggerFactory,
  WebhooksLogLevel,
} from '../telemetry/webhooks-logger';
import { LOGGER_SHAPE } from './express.messages';

type LogMethod = (message: unknown, ...params: unknown[]) => void;

/**
 * The app's logger, as the router takes it: `console`, a pino logger or a winston logger all
 * fit. `log` or `info` takes the informational lines; `debug` is optional.
 */
export interface WebhooksRouterLogger {
  // NOTE: method signatures, so loggers whose methods take `string` (pino, winston) are accepted.
  log?(message: unknown, ...params: unknown[]): void;
  info?(message: unknown, ...params: unknown[]): void;
  warn(message: unknown, ...params: unknown[]): void;
  error(message: unknown, ...params: unknown[]): void;
  debug?(message: unknown, ...params: unknown[]): void;
  /** pino's and winston's level check: lines of a level it turns off are not prepared. */
  isLevelEnabled?(level: string): boolean;
}

/** The level of pino and winston each of the package's levels is written at. */
const ROUTER_LEVEL: Readonly<Record<WebhooksLogLevel, string>> = {
  log: 'info',
  warn: 'warn',
  error: 'error',
  fatal: 'error',
  debug: 'debug',
  verbose: 'debug',
};

/**
 * Where the package's lines go for an Express app: the app's logger with each line prefixed by
 * its context, or one line per message on stdout/stderr when none is given.
 * @throws WebhookConfigurationError when the logger lacks `warn`, `error`, or both `log` and `info`
 */
export function routerLoggerFactory(
  logger: WebhooksRouterLogger | undefined,
): WebhooksLoggerFactory {
  if (logger === undefined) {
    return consoleLoggerFactory;
  }
  const info = methodOf(logger, 'log') ?? methodOf(logger, 'info');
  const warn = methodOf(logger, 'warn');
  const error = methodOf(logger, 'error');
  if (!info || !warn || !error) {
    throw new WebhookConfigurationError(LOGGER_SHAPE);
  }
  const debug = methodOf(logger, 'debug');
  const levelCheck =
    typeof logger.isLevelEnabled === 'function' ? logger.isLevelEnabled.bind(logger) : undefined;
  const isLevelEnabled = (level: WebhooksLogLevel): boolean =>
    (debug !== undefined || ROUTER_LEVEL[level] !== 'debug') &&
    (levelCheck?.(ROUTER_LEVEL[level]) ?? true);
  return (context: string): WebhooksLogger => {
    const line =
      (write: LogMethod): LogMethod =>
      (message, ...params) =>
        write(typeof message === 'string' ? `[${context}] ${message}` : message, ...params);
    return {
      log: line(info),
      warn: line(warn),
      error: line(error),
      debug: line(debug ?? (() => undefined)),
      verbose: line(debug ?? (() => undefined)),
      fatal: line(error),
      isLevelEnabled,
    };
  };
}

/** The logger's method bound to it (pino's and winston's methods read `this`). */
function methodOf(logger: WebhooksRouterLogger, name: keyof WebhooksRouterLogger) {
  const method = logger[name];
  return typeof method === 'function' ? (method.bind(logger) as LogMethod) : undefined;
}
