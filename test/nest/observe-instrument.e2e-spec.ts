import { Injectable } from '@nestjs/common';
import { createObserveModule } from '@nestjs/observe';
import {
  OnPaymentEvent,
  PaymentEvent,
  stripeEndpoint,
  WebhookContext,
} from 'nestjs-payment-webhooks';
import { settled } from 'nestjs-payment-webhooks/testing';
import { post } from '../support/http';
import { ObserveCollector, startObserveCollector } from '../support/observe-collector';
import { RecordingLogger } from '../support/recording-logger';
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

/**
 * Nest 12's `nest new` adds `@nestjs/observe`: its module, and `instrument: ObserveInstrument` in
 * `main.ts`, which puts a `Proxy` around every provider, the package's options among them.
 */
describe.each<Database>(['sqlite', 'postgres'])(
  'an app instrumented by @nestjs/observe, as nest new makes it, on %s',
  (database) => {
    let t: TestApp;
    let observe: ObserveCollector;
    const logger = new RecordingLogger();

    beforeAll(async () => {
      observe = await startObserveCollector();
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
      observe?.close();
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
