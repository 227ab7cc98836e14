import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import { Injectable, LoggerService } from '@nestjs/common';
import { createObserveModule } from '@nestjs/observe';
import {
  OnPaymentEvent,
  PaymentEvent,
  stripeEndpoint,
  WebhookContext,
} from 'nestjs-payment-webhooks';
import { settled } from 'nestjs-payment-webhooks/testing';
import { post } from '../support/http';
import { signedStripeEvent } from '../support/stripe-event';
import { Database, eventually, startTestApp, TestApp, TestEffect } from '../support/test-app';

const SECRET = 'whsec_observe_instrument';

/** What `nest new` (Nest 12) puts in `src/app.module.ts`, and `src/main.ts` passes to Nest. */
const { ObserveModule, ObserveInstrument } = createObserveModule();

@Injectable()
class Fulfilment {
  @OnPaymentEvent('payment.succeeded')
  async paid(event: PaymentEvent, ctx: WebhookContext): Promise<void> {
    await ctx.manager.insert(TestEffect, {
      eventId: event.eventId,
      handler: 'paid',
      merchantRef: null,
    });
  }
}

/** Keeps the lines the app logs. */
class CapturingLogger implements LoggerService {
  readonly lines: { level: string; text: string }[] = [];
  log = (message: unknown) => this.keep('log', message);
  warn = (message: unknown) => this.keep('warn', message);
  error = (message: unknown) => this.keep('error', message);
  debug = (message: unknown) => this.keep('debug', message);
  verbose = (message: unknown) => this.keep('verbose', message);

  private keep(level: string, message: unknown): void {
    this.lines.push({
      level,
      text: typeof message === 'string' ? message : JSON.stringify(message),
    });
  }
}

/** Stands in for Observe's collector: keeps each batch of telemetry the agent posts. */
async function collector(): Promise<{ server: Server; url: string; batches: string[] }> {
  const batches: string[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks);
      batches.push(
        request.headers['content-encoding'] === 'gzip' || body[0] === 0x1f
          ? gunzipSync(body).toString('utf8')
          : body.toString('utf8'),
      );
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { server, url: `http://127.0.0.1:${port}`, batches };
}

/**
 * Nest 12's `nest new` adds `@nestjs/observe`: its module, and `instrument: ObserveInstrument` in
 * `main.ts`, which puts a `Proxy` around every provider, the package's options among them.
 */
describe.each<Database>(['sqlite', 'postgres'])(
  'an app instrumented by @nestjs/observe, as nest new makes it, on %s',
  (database) => {
    let t: TestApp;
    let observe: Awaited<ReturnType<typeof collector>>;
    const logger = new CapturingLogger();

    beforeAll(async () => {
      observe = await collector();
      t = await startTestApp({
        platform: 'express',
        database,
        logger,
        handlers: [Fulfilment],
        imports: [
          ObserveModule.forRoot({
            appKey: 'test-app-key',
            appSecret: 'test-app-secret',
            serviceId: 'shop',
            endpoint: observe.url,
            flushInterval: 1_000,
          }),
        ],
        instrument: ObserveInstrument,
        webhooks: {
          endpoints: [stripeEndpoint({ name: 'stripe', secret: SECRET })],
          dispatch: { inline: database === 'postgres' },
        },
      });
    });
    afterAll(async () => {
      await t?.close();
      observe?.server.close();
    });

    it('starts, handles a signed delivery once, and answers its re-delivery as a duplicate', async () => {
      const event = signedStripeEvent(SECRET);

      const answers = [
        await post(`${t.url}/webhooks/stripe`, event.body, event.headers),
        await post(`${t.url}/webhooks/stripe`, event.body, event.headers),
      ];

      expect(answers.map((answer) => answer.status)).toEqual([200, 200]);
      const { event: stored } = await settled(t.app, event.id, { timeoutMs: 20_000 });
      expect([stored.status, stored.deliveryCount]).toEqual(['processed', 2]);
      const effects = (await t.dataSource.query(
        `SELECT COUNT(*) AS n FROM test_effects WHERE "eventId" = ${database === 'postgres' ? '$1' : '?'}`,
        [event.id],
      )) as { n: number | string }[];
      expect(Number(effects[0].n)).toBe(1);
    });

    it("is traced by the agent: the deliveries' requests reach its collector, and nothing is logged as an error", async () => {
      const event = signedStripeEvent(SECRET);
      expect((await post(`${t.url}/webhooks/stripe`, event.body, event.headers)).status).toBe(200);

      await eventually(() =>
        observe.batches.some((batch) => batch.includes('"/webhooks/:endpoint"')),
      );
      expect(logger.lines.filter((line) => line.level === 'error')).toEqual([]);
    });
  },
);
