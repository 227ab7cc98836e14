import { safeLogValue } from './safe-text';
import {
  WebhooksLogger,
  WebhooksLoggerFactory,
  webhooksLoggerFactory,
  WebhooksLogLevel,
} from './webhooks-logger';

/**
 * A logger whose every message and parameter goes through `safeText()` first: card numbers
 * masked, control characters and ANSI escapes written visibly. The package logs through it
 * wherever a line may carry a value from a delivery or a stored row, and hands it to handlers
 * as `ctx.logger`; where the line goes is the logger the adapter chose (Nest's `Logger` in a
 * Nest app), looked up when a line is written, so a logger made at import time follows it too.
 */
export class SafeLogger implements WebhooksLogger {
  private factory?: WebhooksLoggerFactory;
  private target?: WebhooksLogger;

  constructor(private readonly context: string) {}

  log(message: unknown, ...params: unknown[]): void {
    this.write('log', message, params);
  }

  warn(message: unknown, ...params: unknown[]): void {
    this.write('warn', message, params);
  }

  error(message: unknown, ...params: unknown[]): void {
    this.write('error', message, params);
  }

  debug(message: unknown, ...params: unknown[]): void {
    this.write('debug', message, params);
  }

  verbose(message: unknown, ...params: unknown[]): void {
    this.write('verbose', message, params);
  }

  fatal(message: unknown, ...params: unknown[]): void {
    this.write('fatal', message, params);
  }

  /** Writes a line where its level is on, its message and parameters made safe first. */
  private write(level: WebhooksLogLevel, message: unknown, params: unknown[]): void {
    const sink = this.sink();
    // NOTE: a line no one writes is not prepared: making it safe costs more than the line.
    if (sink.isLevelEnabled?.(level) === false) {
      return;
    }
    sink[level](safeLogValue(message), ...params.map(safeLogValue));
  }

  private sink(): WebhooksLogger {
    const factory = webhooksLoggerFactory();
    if (this.factory !== factory || !this.target) {
      this.factory = factory;
      this.target = factory(this.context);
    }
    return this.target;
  }
}
