import 'reflect-metadata';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NestFactory } from '@nestjs/core';
import { NestExpressApplication } from '@nestjs/platform-express';
import { AppModule } from '../../sample-app/src/app.module';
import { DEVELOPMENT_SECRETS } from '../../sample-app/src/config';
import { configureApp } from '../../sample-app/src/configure-app';
import { tbankFixtures } from 'nestjs-payment-webhooks/testing';
import { cliJson, runCli } from '../support/cli';
import { post } from '../support/http';
import { eventually } from '../support/test-app';

/**
 * The local "send test webhook" button: the CLI signs a payload file and sends it to the
 * running sample shop, which verifies it, stores it and marks the order paid; the CLI then
 * finds the event in the shop's own database.
 */
describe('CLI send against the running sample shop', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pw-cli-shop-'));
  const sqlitePath = join(dir, 'shop.sqlite');
  let app: NestExpressApplication;
  let url: string;

  const saved = new Map<string, string | undefined>();

  beforeAll(async () => {
    // NOTE: the shop's documented development secrets, set so it does not warn about them.
    for (const [name, value] of Object.entries(DEVELOPMENT_SECRETS)) {
      saved.set(name, process.env[name]);
      process.env[name] = value;
    }
    app = await NestFactory.create<NestExpressApplication>(AppModule.forRoot({ sqlitePath }), {
      rawBody: true,
      logger: false,
      abortOnError: false,
    });
    configureApp(app);
    await app.listen(0, '127.0.0.1');
    url = (await app.getUrl()).replace('[::1]', '127.0.0.1');
  }, 300_000);

  afterAll(async () => {
    await app?.close();
    for (const [name, value] of saved) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    rmSync(dir, { recursive: true, force: true });
  });

  async function createOrder(): Promise<string> {
    const response = await post(`${url}/orders`, JSON.stringify({ amount: 1999, currency: 'USD' }));
    expect(response.status).toBe(201);
    return (JSON.parse(response.body) as { id: string }).id;
  }

  async function stateOf(orderId: string): Promise<string> {
    const response = await fetch(`${url}/orders/${orderId}`);
    return ((await response.json()) as { state: string }).state;
  }

  function file(name: string, payload: object): string {
    const path = join(dir, name);
    writeFileSync(path, `${JSON.stringify(payload, null, 2)}\n`);
    return path;
  }

  it('pays an order with a Stripe event sent by the CLI, and lists it from the shop database', async () => {
    const orderId = await createOrder();
    const eventId = `evt_cli_shop_${Date.now().toString(36)}`;
    const event = file('stripe-event.json', {
      id: eventId,
      object: 'event',
      type: 'payment_intent.succeeded',
      created: Math.floor(Date.now() / 1000),
      data: {
        object: {
          id: `pi_${eventId}`,
          object: 'payment_intent',
          amount: 1999,
          currency: 'usd',
          status: 'succeeded',
          metadata: { orderId },
        },
      },
    });
    const sent = await runCli([
      'send',
      `${url}/webhooks/stripe`,
      '--provider',
      'stripe',
      '--secret',
      DEVELOPMENT_SECRETS.STRIPE_WEBHOOK_SECRET,
      '--file',
      event,
    ]);
    expect({ code: sent.code, stdout: sent.stdout, stderr: sent.stderr }).toEqual({
      code: 0,
      stdout: 'HTTP 200 OK\n',
      stderr: '',
    });
    await eventually(async () => (await stateOf(orderId)) === 'paid');

    const listed = cliJson<{ eventId: string; merchantRef: string; status: string }[]>(
      await runCli(['events', 'list', '--merchant', orderId, '--json'], {
        env: { DATABASE_URL: `sqlite:${sqlitePath}` },
      }),
    );
    expect(listed).toEqual([
      expect.objectContaining({ eventId, merchantRef: orderId, status: 'processed' }),
    ]);
  });

  it("answers T-Bank's exact OK to a notification sent by the CLI", async () => {
    const orderId = await createOrder();
    const sent = await runCli([
      'send',
      `${url}/webhooks/tbank`,
      '--provider',
      'tbank',
      '--secret',
      DEVELOPMENT_SECRETS.TBANK_PASSWORD,
      '--file',
      file('tbank.json', tbankFixtures.confirmed({ orderId, amount: 1999 })),
      '--json',
    ]);
    expect(sent.code).toBe(0);
    expect(cliJson<{ status: number; body: string }>(sent)).toMatchObject({
      status: 200,
      body: 'OK',
    });

    const wrong = await runCli([
      'send',
      `${url}/webhooks/tbank`,
      '--provider',
      'tbank',
      '--secret',
      'not-the-terminal-password',
      '--file',
      file('tbank-wrong.json', tbankFixtures.confirmed({ orderId: `${orderId}-x` })),
    ]);
    expect(wrong.code).toBe(1);
    expect(wrong.stdout).toMatch(/^HTTP 400/);
  });
});
