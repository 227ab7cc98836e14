import { stripeEndpoint } from 'nestjs-payment-webhooks/express';
import { FakeProviderApi } from '../../lib/spec-support/fake-provider-api';
import { post } from '../support/http';
import { inboxStatuses, startRouterApp } from '../support/router-app';
import { stripePaymentEvent } from '../support/stripe-event';
import { countEffects, eventually, TestEffect } from '../support/test-app';

/**
 * The context function handlers get on the plain Express router. (Every provider kind over the
 * router, on SQLite and PostgreSQL, runs in test/providers/provider-kits.e2e-spec.ts.)
 */

const STRIPE_SECRET = 'whsec_express_router_providers';

const stripeEvent = () => stripePaymentEvent(STRIPE_SECRET);

describe('the context function handlers get', () => {
  it('carries the transaction manager, the attempt, a stable idempotency key, a logger and fetchStatus', async () => {
    const seen: { attempt: number; key: string; status: string }[] = [];
    const lines: string[] = [];
    const fake = await FakeProviderApi.start();
    const t = await startRouterApp({
      database: 'sqlite',
      webhooks: {
        endpoints: [
          stripeEndpoint({
            name: 'stripe',
            secret: STRIPE_SECRET,
            api: fake.clientOptions('stripe'),
          }),
        ],
        dispatch: {
          pollIntervalMs: 50,
          retry: { maxAttempts: 3, baseDelayMs: 10, maxDelayMs: 20 },
        },
        logger: {
          log: (line: unknown) => lines.push(String(line)),
          warn: (line: unknown) => lines.push(String(line)),
          error: () => undefined,
        },
      },
      handlers: [
        {
          on: 'payment.succeeded',
          name: 'fulfil',
          handle: async (event, ctx) => {
            const { status } = await ctx.fetchStatus();
            seen.push({ attempt: ctx.attempt, key: ctx.idempotencyKey, status });
            ctx.logger.log(`fulfilling ${event.eventId}`);
            await ctx.manager.insert(TestEffect, {
              eventId: event.eventId,
              handler: 'fulfil',
              merchantRef: event.merchantRef,
            });
            if (ctx.attempt === 1) {
              throw new Error('first attempt fails');
            }
          },
        },
      ],
    });
    try {
      const event = stripeEvent();
      fake.setPayment('stripe', `pi_${event.id}`, {
        status: 'succeeded',
        amount: 1999,
        currency: 'usd',
      });
      await post(`${t.url}/webhooks/stripe`, event.body, event.headers());
      await eventually(async () => (await inboxStatuses(t, event.id))[0]?.status === 'processed');
      expect(seen.map((call) => call.attempt)).toEqual([1, 2]);
      expect(seen[0].key).toBe(seen[1].key);
      expect(seen[0].key).not.toBe('');
      expect(seen[0].status).toBe('succeeded');
      expect(lines.some((line) => line.includes(`fulfilling ${event.id}`))).toBe(true);
      // The failed attempt's insert rolled back with its transaction.
      expect(await countEffects(t, event.id)).toBe(1);
    } finally {
      await t.close();
      await fake.close();
    }
  });
});
