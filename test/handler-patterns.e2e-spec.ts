import { Injectable } from '@nestjs/common';
import {
  OnPaymentEvent,
  PaymentEventPattern,
  stripeEndpoint,
  WebhookConfigurationError,
} from 'nestjs-payment-webhooks';
import { startRouterApp } from './support/router-app';
import { startTestApp } from './support/test-app';

/**
 * A handler pattern no event can carry is refused at startup, on both the Nest module and the
 * Express router, instead of being stored as `ignored` forever.
 */

const SECRET = 'whsec_handler_patterns';

/** The startup error; an app that starts after all is closed and the test fails. */
async function startupError(started: Promise<{ close(): Promise<void> }>): Promise<Error> {
  const outcome = await started.then(
    async (app) => {
      await app.close();
      return new Error('the app started');
    },
    (error: Error) => error,
  );
  expect(outcome).toBeInstanceOf(WebhookConfigurationError);
  return outcome;
}

@Injectable()
class WildcardHandlers {
  @OnPaymentEvent('payment.*' as PaymentEventPattern)
  async paid(): Promise<void> {}
}

@Injectable()
class MistypedKindHandlers {
  @OnPaymentEvent('strpe:charge.refunded')
  async refunded(): Promise<void> {}
}

it('refuses @OnPaymentEvent("payment.*"), listing the types it stands for', async () => {
  const started = startTestApp({
    platform: 'express',
    database: 'sqlite',
    handlers: [WildcardHandlers],
    webhooks: { endpoints: [stripeEndpoint({ name: 'stripe', secret: SECRET })] },
  });
  expect((await startupError(started)).message).toMatch(
    /Handler "WildcardHandlers.paid" subscribes to "payment.\*".*wildcards other than '\*' alone are not supported; list the types instead: 'payment.authorized', 'payment.succeeded', 'payment.failed', 'payment.canceled'/,
  );
});

it('refuses a native type of a kind no endpoint has, naming the closest kind', async () => {
  const started = startTestApp({
    platform: 'express',
    database: 'sqlite',
    handlers: [MistypedKindHandlers],
    webhooks: { endpoints: [stripeEndpoint({ name: 'stripe', secret: SECRET })] },
  });
  expect((await startupError(started)).message).toMatch(
    /no configured endpoint is of kind "strpe" \(the kinds are "stripe"\); the closest is "stripe"/,
  );
});

it('refuses a function handler on the Express router with a mistyped type', async () => {
  const started = startRouterApp({
    database: 'sqlite',
    webhooks: { endpoints: [stripeEndpoint({ name: 'stripe', secret: SECRET })] },
    handlers: [
      { on: ['payment.succeded' as PaymentEventPattern], name: 'fulfil', handle: () => undefined },
    ],
  });
  expect((await startupError(started)).message).toMatch(
    /Handler "fulfil" subscribes to "payment.succeded".*it is not a normalized type; the closest is "payment.succeeded"/,
  );
});
