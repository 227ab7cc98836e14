import { LoggerService } from '@nestjs/common';
import { tbankEndpoint, yookassaEndpoint } from 'nestjs-payment-webhooks';
import {
  signTBankDelivery,
  tbankFixtures,
  WebhookTestClient,
  yookassaDelivery,
  yookassaPayment,
} from 'nestjs-payment-webhooks/testing';
import { Platform, startTestApp, TestApp } from './support/test-app';

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

describe.each<Platform>(['express', 'fastify'])('the delivery journal over %s', (platform) => {
  let app: TestApp;
  let client: WebhookTestClient;
  let logger: CapturingLogger;

  beforeAll(async () => {
    logger = new CapturingLogger();
    app = await startTestApp({
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
      },
    });
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
    const delivery = signTBankDelivery({
      password: TBANK_PASSWORD,
      payload: tbankFixtures.confirmed({ orderId: 'order-journal-1', terminalKey: CARD_NUMBER }),
    });
    expect((await client.send('tbank', delivery)).status).toBe(400);

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
});
