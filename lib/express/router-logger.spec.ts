import { WebhookConfigurationError } from '../core/webhook-errors';
import { routerLoggerFactory } from './router-logger';

describe('routerLoggerFactory', () => {
  it('writes through a console-shaped logger, each line prefixed with its context', () => {
    const lines: unknown[][] = [];
    const logger = routerLoggerFactory({
      log: (...args: unknown[]) => lines.push(['log', ...args]),
      warn: (...args: unknown[]) => lines.push(['warn', ...args]),
      error: (...args: unknown[]) => lines.push(['error', ...args]),
    })('WebhookDispatcher');
    logger.log('claimed 3 events');
    logger.fatal('store lost', { code: 'X' });
    logger.debug('not shown: the logger has no debug');
    expect(lines).toEqual([
      ['log', '[WebhookDispatcher] claimed 3 events'],
      ['error', '[WebhookDispatcher] store lost', { code: 'X' }],
    ]);
  });

  it('calls a pino- or winston-shaped logger (info, and methods reading `this`) on itself', () => {
    class LevelLogger {
      readonly lines: string[] = [];
      info(message: string) {
        this.lines.push(`info ${message}`);
      }
      warn(message: string) {
        this.lines.push(`warn ${message}`);
      }
      error(message: string) {
        this.lines.push(`error ${message}`);
      }
      debug(message: string) {
        this.lines.push(`debug ${message}`);
      }
    }
    const target = new LevelLogger();
    const logger = routerLoggerFactory(target)('WebhooksRouter');
    logger.log('ready');
    logger.verbose('details');
    logger.warn('slow');
    expect(target.lines).toEqual([
      'info [WebhooksRouter] ready',
      'debug [WebhooksRouter] details',
      'warn [WebhooksRouter] slow',
    ]);
  });

  it("takes the logger's own level check (pino, winston), and no debug method as debug off", () => {
    const pinoShaped = {
      info: () => undefined,
      warn: () => undefined,
      error: () => undefined,
      debug: () => undefined,
      isLevelEnabled(level: string) {
        return level !== 'debug';
      },
    };
    const levels = routerLoggerFactory(pinoShaped)('WebhooksRouter');
    expect(levels.isLevelEnabled?.('debug')).toBe(false);
    expect(levels.isLevelEnabled?.('verbose')).toBe(false);
    expect(levels.isLevelEnabled?.('log')).toBe(true);
    const consoleShaped = { log: () => undefined, warn: () => undefined, error: () => undefined };
    const plain = routerLoggerFactory(consoleShaped)('WebhooksRouter');
    expect(plain.isLevelEnabled?.('debug')).toBe(false);
    expect(plain.isLevelEnabled?.('warn')).toBe(true);
  });

  it('refuses a logger without warn, error, or log/info, naming what it needs', () => {
    expect(() => routerLoggerFactory({ warn: () => undefined, error: () => undefined })).toThrow(
      WebhookConfigurationError,
    );
    expect(() =>
      routerLoggerFactory({ log: () => undefined } as unknown as Parameters<
        typeof routerLoggerFactory
      >[0]),
    ).toThrow(/`warn`, `error`, and `log` or `info`/);
  });
});
