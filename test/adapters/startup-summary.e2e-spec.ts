import { Injectable } from '@nestjs/common';
import {
  OnPaymentEvent,
  qvardEndpoint,
  sberEndpoint,
  stripeEndpoint,
  WebhooksModuleOptions,
} from 'nestjs-payment-webhooks';
import { bullmqTransport } from 'nestjs-payment-webhooks/bullmq';
import { RecordingLogger } from '../support/recording-logger';
import { dropRedisPrefix, redisPrefix, redisUrl } from '../support/redis';
import { startTestApp } from '../support/test-app';

@Injectable()
class ShopHandlers {
  @OnPaymentEvent('payment.succeeded', { endpoint: 'stripe' })
  async paid(): Promise<void> {}

  @OnPaymentEvent('stripe:charge.dispute.created')
  async dispute(): Promise<void> {}

  /** A Qvard native type, but only from the Stripe endpoint: it can never fire. */
  @OnPaymentEvent('qvard:completed', { endpoint: 'stripe' })
  async misrouted(): Promise<void> {}
}

@Injectable()
class BankHandlers {
  @OnPaymentEvent('sber:deposited')
  async deposited(): Promise<void> {}
}

const webhooks: WebhooksModuleOptions = {
  endpoints: [
    stripeEndpoint({ name: 'stripe', secret: 'whsec_summary_secret' }),
    stripeEndpoint({ name: 'stripe-eu', secret: 'whsec_summary_eu_secret' }),
    sberEndpoint({ name: 'sber', callbackToken: 'sber-summary-token' }),
    qvardEndpoint({ name: 'qvard', secret: 'qvard-summary-secret' }),
  ],
  dispatch: { enabled: false },
};

describe.each([false, true])('the startup summary (forRootAsync: %s)', (async) => {
  const logger = new RecordingLogger();

  beforeAll(async () => {
    const t = await startTestApp({
      platform: 'express',
      database: 'sqlite',
      async,
      logger,
      webhooks,
      handlers: [ShopHandlers, BankHandlers],
      extras: { path: 'hooks' },
      configure: (app) => app.setGlobalPrefix('api'),
    });
    await t.close();
  });

  it('names each endpoint once with its route and the handlers it runs', () => {
    expect(logger.of('WebhooksModule', 'log').map((line) => line.text)).toEqual([
      'Endpoint "stripe" (stripe) at POST /api/hooks/stripe runs ' +
        'ShopHandlers.paid (payment.succeeded), ShopHandlers.dispute (stripe:charge.dispute.created)',
      'Endpoint "stripe-eu" (stripe) at POST /api/hooks/stripe-eu runs ' +
        'ShopHandlers.dispute (stripe:charge.dispute.created)',
      'Endpoint "sber" (sber) at GET|POST /api/hooks/sber runs BankHandlers.deposited (sber:deposited)',
      'Endpoint "qvard" (qvard) at POST /api/hooks/qvard runs no handler',
      'Handlers do not run in this instance (dispatch.enabled: false); another instance runs them',
    ]);
  });

  it('warns once about the endpoint no handler listens to, with the fix', () => {
    const warnings = logger.of('WebhooksModule', 'warn').map((line) => line.text);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('No @OnPaymentEvent handler listens to endpoint "qvard" (qvard)');
    expect(warnings[0]).toContain('stored as ignored');
    expect(warnings[0]).toContain("'qvard:<native type>'");
  });
});

describe.each([
  [{}, 'Handlers run in this process, up to 4 events at a time'],
  [
    { transport: 'relay and worker' },
    'Handlers run on BullMQ queue "payment-webhooks"; this process relays due events to it and runs its jobs',
  ],
  [
    { transport: 'relay only' },
    'Handlers run on BullMQ queue "payment-webhooks"; this process relays due events to it',
  ],
])('the startup summary of where handlers run (%j)', (setting, line) => {
  it(`says: ${line}`, async () => {
    const logger = new RecordingLogger();
    const prefix = redisPrefix();
    const url = new URL(redisUrl());
    const transport =
      'transport' in setting
        ? bullmqTransport({
            connection: { host: url.hostname, port: Number(url.port || 6379) },
            prefix,
            worker: setting.transport === 'relay and worker',
          })
        : undefined;
    const t = await startTestApp({
      platform: 'express',
      database: transport ? 'postgres' : 'sqlite',
      logger,
      webhooks: {
        endpoints: [stripeEndpoint({ name: 'stripe', secret: 'whsec_summary_secret' })],
        dispatch: { transport },
      },
      handlers: [ShopHandlers],
    });
    await t.close();
    await dropRedisPrefix(redisUrl(), prefix);
    expect(logger.of('WebhooksModule', 'log').map((entry) => entry.text)).toContain(line);
  });
});
