import { Console } from 'node:console';
import { Writable } from 'node:stream';
import { stripVTControlCharacters } from 'node:util';
import { ConsoleLogger, LoggerService } from '@nestjs/common';
import {
  tbankEndpoint,
  WebhookJournalFormat,
  WebhookTelemetry,
  yookassaEndpoint,
} from 'nestjs-payment-webhooks';
import {
  signTBankDelivery,
  tbankFixtures,
  WebhookTestClient,
  yookassaDelivery,
  yookassaPayment,
} from 'nestjs-payment-webhooks/testing';
import { startRouterApp } from '../support/router-app';
import { Platform, startTestApp, TestApp } from '../support/test-app';

/** A test card number (Luhn-valid), and what the journal may show of it. */
const CARD_NUMBER = '4111111111111111';
const MASKED = '411111******1111';

const TBANK_PASSWORD = 'journal-tbank-password';

/** One call to the app's logger: the level, the message as a JSON logger would write it. */
interface LogLine {
  readonly level: string;
  readonly context: string | undefined;
  readonly text: string;
}

/** The app's logger: keeps every line it is given. */
class CapturingLogger implements LoggerService {
  readonly lines: LogLine[] = [];

  log(message: unknown, context?: string): void {
    this.keep('log', message, context);
  }
  warn(message: unknown, context?: string): void {
    this.keep('warn', message, context);
  }
  error(message: unknown, stackOrContext?: string, context?: string): void {
    this.keep('error', message, context ?? stackOrContext);
  }
  debug(message: unknown, context?: string): void {
    this.keep('debug', message, context);
  }
  verbose(message: unknown, context?: string): void {
    this.keep('verbose', message, context);
  }

  /** The ingress journal's lines, parsed. */
  journal(): Record<string, unknown>[] {
    return this.lines
      .filter((line) => line.context === 'WebhookIngress')
      .map((line) => JSON.parse(line.text) as Record<string, unknown>);
  }

  private keep(level: string, message: unknown, context: string | undefined): void {
    const text = typeof message === 'string' ? message : JSON.stringify(message);
    this.lines.push({ level, context, text });
  }
}

function journalApp(
  platform: Platform,
  logger: LoggerService,
  journal?: WebhookJournalFormat,
): Promise<TestApp> {
  return startTestApp({
    platform,
    database: 'sqlite',
    logger,
    webhooks: {
      endpoints: [
        tbankEndpoint({
          name: 'tbank',
          password: TBANK_PASSWORD,
          terminalKey: '1772186527637DEMO',
        }),
        yookassaEndpoint({
          name: 'yookassa',
          allowedIps: ['127.0.0.1', '::1'],
          verifyWithProvider: false,
        }),
      ],
      ...(journal === undefined ? {} : { observability: { journal } }),
    },
  });
}

/** A T-Bank delivery genuinely signed for a terminal whose key is a card number. */
function cardNumberTerminalDelivery() {
  return signTBankDelivery({
    password: TBANK_PASSWORD,
    payload: tbankFixtures.confirmed({ orderId: 'order-journal-1', terminalKey: CARD_NUMBER }),
  });
}

describe.each<Platform>(['express', 'fastify'])(
  'the delivery journal as objects over %s',
  (platform) => {
    let app: TestApp;
    let client: WebhookTestClient;
    let logger: CapturingLogger;

    beforeAll(async () => {
      logger = new CapturingLogger();
      app = await journalApp(platform, logger, 'object');
      client = new WebhookTestClient(app.url);
    });

    afterAll(() => app.close());

    beforeEach(() => {
      logger.lines.length = 0;
    });

    function everyLine(): string {
      return logger.lines.map((line) => line.text).join('\n');
    }

    it('masks a card number in the reason of a refused signature', async () => {
      // Genuinely signed, but for a terminal whose key is a card number: the reason quotes it.
      expect((await client.send('tbank', cardNumberTerminalDelivery())).status).toBe(400);

      expect(logger.journal()).toEqual([
        expect.objectContaining({
          endpoint: 'tbank',
          decision: 'rejected_signature',
          status: 400,
          reason: expect.stringContaining(`terminal "${MASKED}"`),
        }),
      ]);
      expect(logger.lines.find((line) => line.context === 'WebhookIngress')?.level).toBe('warn');
      expect(everyLine()).not.toContain(CARD_NUMBER);
    });

    it('masks a card number in the reason of an envelope that fails validation', async () => {
      const delivery = yookassaDelivery({
        event: 'payment.succeeded',
        object: yookassaPayment('succeeded', {
          id: '2f6a8c1e-000f-5000-9000-1b2c3d4e5f60',
          amount: { value: `${CARD_NUMBER}.123`, currency: 'RUB' },
        }),
      });
      expect((await client.send('yookassa', delivery)).status).toBe(400);

      expect(logger.journal()).toEqual([
        expect.objectContaining({
          endpoint: 'yookassa',
          decision: 'invalid',
          status: 400,
          reason: expect.stringContaining(`value "${MASKED}.123"`),
        }),
      ]);
      expect(everyLine()).not.toContain(CARD_NUMBER);
    });
  },
);

describe('the delivery journal as one line, and off', () => {
  const payment = (id = '2f6a8c1e-000f-5000-9000-1b2c3d4e5f61') =>
    yookassaDelivery({
      event: 'payment.succeeded',
      object: yookassaPayment('succeeded', { id }),
    });

  /** The journal's pattern for an accepted YooKassa delivery, as one line. */
  const ACCEPTED_LINE =
    /requestId=\S+ endpoint=yookassa provider=yookassa decision=accepted status=200 latencyMs=\d+ sourceIp=\S+ eventId=\S+ type=payment\.succeeded\n$/;

  it("writes one line per delivery by default through Nest's default ConsoleLogger", async () => {
    const app = await journalApp('express', new ConsoleLogger());
    const written: string[] = [];
    try {
      const client = new WebhookTestClient(app.url);
      const stdout = jest.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
        // NOTE: the default ConsoleLogger colors its lines; the test reads them as text.
        written.push(stripVTControlCharacters(String(chunk)));
        return true;
      });
      try {
        expect((await client.send('yookassa', payment())).status).toBe(200);
      } finally {
        stdout.mockRestore();
      }
    } finally {
      await app.close();
    }
    const journal = written.filter((chunk) => chunk.includes('WebhookIngress'));
    expect(journal).toHaveLength(1);
    expect(journal[0]).toMatch(ACCEPTED_LINE);
    expect(journal[0].split('\n')).toHaveLength(2);
  });

  it('writes one line per delivery by default through console in a plain Express app', async () => {
    let written = '';
    const stream = new Writable({
      write(chunk: Buffer, _encoding, done) {
        written += chunk.toString();
        done();
      },
    });
    const app = await startRouterApp({
      database: 'sqlite',
      webhooks: {
        endpoints: [
          yookassaEndpoint({
            name: 'yookassa',
            allowedIps: ['127.0.0.1', '::1'],
            verifyWithProvider: false,
          }),
        ],
        logger: new Console({ stdout: stream, stderr: stream }),
      },
    });
    try {
      const client = new WebhookTestClient(app.url);
      const id = '2f6a8c1e-000f-5000-9000-1b2c3d4e5f62';
      expect((await client.send('yookassa', payment(id))).status).toBe(200);
    } finally {
      await app.close();
    }
    const journal = written.split(/(?<=\n)/).filter((line) => line.includes('[WebhookIngress]'));
    expect(journal).toHaveLength(1);
    expect(journal[0]).toMatch(/^\[WebhookIngress\] /);
    expect(journal[0]).toMatch(ACCEPTED_LINE);
    expect(written).not.toMatch(/decision: 'accepted'|Object\(/);
  });

  it("writes one key=value line per delivery with journal: 'line', masked like the object", async () => {
    const logger = new CapturingLogger();
    const app = await journalApp('express', logger, 'line');
    try {
      const client = new WebhookTestClient(app.url);
      expect((await client.send('yookassa', payment())).status).toBe(200);
      expect((await client.send('tbank', cardNumberTerminalDelivery())).status).toBe(400);

      const lines = logger.lines.filter((line) => line.context === 'WebhookIngress');
      expect(lines.map((line) => line.level)).toEqual(['log', 'warn']);
      expect(lines[0].text).toMatch(
        /^requestId=\S+ endpoint=yookassa provider=yookassa decision=accepted status=200 latencyMs=\d+ sourceIp=\S+ eventId=\S+ type=payment\.succeeded$/,
      );
      expect(lines[1].text).toMatch(
        /^requestId=\S+ endpoint=tbank provider=tbank decision=rejected_signature status=400 latencyMs=\d+ sourceIp=\S+ reason="(?:[^"\\]|\\.)*"$/,
      );
      expect(lines[1].text).toContain(`terminal \\"${MASKED}\\"`);
      expect(logger.lines.map((line) => line.text).join('\n')).not.toContain(CARD_NUMBER);
    } finally {
      await app.close();
    }
  });

  it('logs no journal line with journal: false, and still publishes every delivery', async () => {
    const logger = new CapturingLogger();
    const app = await journalApp('express', logger, false);
    try {
      const published: string[] = [];
      app.app.get(WebhookTelemetry).subscribe({
        delivery: (record) => published.push(`${record.endpoint} ${record.decision}`),
      });
      const client = new WebhookTestClient(app.url);
      expect((await client.send('yookassa', payment())).status).toBe(200);
      expect((await client.send('tbank', cardNumberTerminalDelivery())).status).toBe(400);

      expect(logger.lines.filter((line) => line.context === 'WebhookIngress')).toEqual([]);
      expect(published).toEqual(['yookassa accepted', 'tbank rejected_signature']);
    } finally {
      await app.close();
    }
  });

  it('refuses another journal format at startup, naming the choices', async () => {
    await expect(
      journalApp('express', new CapturingLogger(), 'json' as unknown as WebhookJournalFormat),
    ).rejects.toThrow(/observability\.journal.*'object', 'line' or false/);
  });
});
