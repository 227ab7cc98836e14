import { ConsoleLogger, Logger } from '@nestjs/common';
import { useNestLogger } from '../nest/nest-logger';
import { SafeLogger } from './safe-logger';
import { WebhooksLogger, useWebhooksLogger, webhooksLoggerFactory } from './webhooks-logger';

describe('SafeLogger', () => {
  const before = webhooksLoggerFactory();
  afterEach(() => useWebhooksLogger(before));

  function capture(): { lines: [string, string, unknown[]][] } {
    const lines: [string, string, unknown[]][] = [];
    useWebhooksLogger((context) => {
      const at =
        (level: string) =>
        (message: unknown, ...params: unknown[]) =>
          lines.push([`${level}:${context}`, String(message), params]);
      return {
        log: at('log'),
        warn: at('warn'),
        error: at('error'),
        debug: at('debug'),
        verbose: at('verbose'),
        fatal: at('fatal'),
      } satisfies WebhooksLogger;
    });
    return { lines };
  }

  it('masks card numbers and escapes control characters before the chosen logger sees them', () => {
    const { lines } = capture();
    new SafeLogger('WebhookIngress').warn('pan 4242424242424242\x1b[31m', 'ref\n4111111111111111');
    expect(lines).toHaveLength(1);
    const [where, message, params] = lines[0];
    expect(where).toBe('warn:WebhookIngress');
    expect(message).not.toContain('4242424242424242');
    expect(message).not.toContain('\x1b');
    expect(String(params[0])).not.toContain('4111111111111111');
    expect(String(params[0])).not.toContain('\n');
  });

  it('does not prepare a line of a level the chosen logger has turned off', () => {
    const written: string[] = [];
    let read = 0;
    useWebhooksLogger(() => ({
      log: (message: unknown) => written.push(String(message)),
      warn: () => undefined,
      error: () => undefined,
      debug: (message: unknown) => written.push(String(message)),
      verbose: () => undefined,
      fatal: () => undefined,
      isLevelEnabled: (level) => level !== 'debug',
    }));
    const costly = {
      get field() {
        read++;
        return 'value';
      },
    };
    const logger = new SafeLogger('Levels');
    logger.debug(costly);
    expect(read).toBe(0);
    logger.log(costly);
    expect(read).toBe(1);
    expect(written).toHaveLength(1);
  });

  it("asks Nest's Logger which levels the app turned on", () => {
    const written: string[] = [];
    const sink = {
      log: (message: unknown) => written.push(`log ${String(message)}`),
      error: () => undefined,
      warn: () => undefined,
      debug: (message: unknown) => written.push(`debug ${String(message)}`),
    };
    Logger.overrideLogger(sink);
    Logger.overrideLogger(['log', 'error', 'warn']);
    try {
      useNestLogger();
      const logger = new SafeLogger('Nest');
      logger.debug('not prepared');
      logger.log('written');
      expect(written).toEqual(['log written']);
    } finally {
      Logger.overrideLogger(new ConsoleLogger());
    }
  });

  it('follows a logger chosen after it was made', () => {
    const early = new SafeLogger('Early');
    const { lines } = capture();
    early.log('ready');
    expect(lines.map(([where]) => where)).toEqual(['log:Early']);
  });

  it('writes one line per message to stdout or stderr by default', () => {
    const out = jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      new SafeLogger('Default').error({ decision: 'store_failed', status: 503 });
      expect(out).toHaveBeenCalledTimes(1);
      expect(String(out.mock.calls[0][0])).toMatch(
        /^\d{4}-\d\d-\d\dT[\d:.]+Z ERROR \[Default\] \{"decision":"store_failed","status":503\}\n$/,
      );
    } finally {
      out.mockRestore();
    }
  });
});
