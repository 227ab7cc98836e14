import { safeLogValue } from './safe-text';
import { WebhooksLogger, WebhooksLoggerFactory, webhooksLoggerFactory } from './webhooks-logger';

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
    this.sink().log(safeLogValue(message), ...params.map(safeLogValue));
  }

  warn(message: unknown, ...params: unknown[]): void {
    this.sink().warn(safeLogValue(message), ...params.map(safeLogValue));
  }

  error(message: unknown, ...params: unknown[]): void {
    this.sink().error(safeLogValue(message), ...params.map(safeLogValue));
  }

  debug(message: unknown, ...params: unknown[]): void {
    this.sink().debug(safeLogValue(message), ...params.map(safeLogValue));
  }

  verbose(message: unknown, ...params: unknown[]): void {
    this.sink().verbose(safeLogValue(message), ...params.map(safeLogValue));
  }

  fatal(message: unknown, ...params: unknown[]): void {
    this.sink().fatal(safeLogValue(message), ...params.map(safeLogValue));
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
