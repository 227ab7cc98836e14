import { Logger, LoggerService } from '@nestjs/common';
import { safeLogValue } from './safe-text';

/**
 * A Nest `Logger` whose every message and parameter goes through `safeText()` first: card numbers
 * masked, control characters and ANSI escapes written visibly. The package logs through it
 * wherever a line may carry a value from a delivery or a stored row, and hands it to handlers
 * as `ctx.logger`; where the line goes is still the app's logger.
 */
export class SafeLogger implements LoggerService {
  private readonly logger: Logger;

  constructor(context: string) {
    this.logger = new Logger(context);
  }

  log(message: unknown, ...params: unknown[]): void {
    this.logger.log(safeLogValue(message), ...params.map(safeLogValue));
  }

  warn(message: unknown, ...params: unknown[]): void {
    this.logger.warn(safeLogValue(message), ...params.map(safeLogValue));
  }

  error(message: unknown, ...params: unknown[]): void {
    this.logger.error(safeLogValue(message), ...params.map(safeLogValue));
  }

  debug(message: unknown, ...params: unknown[]): void {
    this.logger.debug(safeLogValue(message), ...params.map(safeLogValue));
  }

  verbose(message: unknown, ...params: unknown[]): void {
    this.logger.verbose(safeLogValue(message), ...params.map(safeLogValue));
  }

  fatal(message: unknown, ...params: unknown[]): void {
    this.logger.fatal(safeLogValue(message), ...params.map(safeLogValue));
  }
}
