import { LoggerService } from '@nestjs/common';

/** One line as the app logged it through Nest's Logger. */
export interface LoggedLine {
  readonly level: 'log' | 'error' | 'warn' | 'debug' | 'verbose' | 'fatal';
  /** The message as text (objects, such as journal entries, as JSON). */
  readonly text: string;
  /** The Logger's context name, e.g. `WebhooksModule`. */
  readonly context: string | undefined;
}

/** A logger for `NestFactory.create({ logger })` that keeps every line, for tests to read. */
export class RecordingLogger implements LoggerService {
  readonly lines: LoggedLine[] = [];

  log(message: unknown, ...rest: unknown[]): void {
    this.record('log', message, rest);
  }
  error(message: unknown, ...rest: unknown[]): void {
    this.record('error', message, rest);
  }
  warn(message: unknown, ...rest: unknown[]): void {
    this.record('warn', message, rest);
  }
  debug(message: unknown, ...rest: unknown[]): void {
    this.record('debug', message, rest);
  }
  verbose(message: unknown, ...rest: unknown[]): void {
    this.record('verbose', message, rest);
  }
  fatal(message: unknown, ...rest: unknown[]): void {
    this.record('fatal', message, rest);
  }

  /** The lines of one context (and level, when given). */
  of(context: string, level?: LoggedLine['level']): LoggedLine[] {
    return this.lines.filter(
      (line) => line.context === context && (level === undefined || line.level === level),
    );
  }

  private record(level: LoggedLine['level'], message: unknown, rest: unknown[]): void {
    // NOTE: Nest passes the context as the last argument (after a stack, for errors).
    const context = rest.length > 0 ? rest[rest.length - 1] : undefined;
    this.lines.push({
      level,
      text: typeof message === 'string' ? message : JSON.stringify(message),
      context: typeof context === 'string' ? context : undefined,
    });
  }
}
