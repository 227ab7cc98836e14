import { Injectable } from '@nestjs/common';
import {
  hmacEndpoint,
  OnPaymentEvent,
  PaymentEventPattern,
  stripeEndpoint,
  WebhookConfigurationError,
} from 'nestjs-payment-webhooks';
import { startRouterApp } from '../support/router-app';
import { startTestApp } from '../support/test-app';

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

/** A provider of this package the app has no endpoint for: shared handler code stays valid. */
@Injectable()
class UnconfiguredKindHandlers {
  @OnPaymentEvent(['sber:deposited', 'github:push'])
  async deposited(): Promise<void> {}
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
    /"strpe" is neither the kind of a configured endpoint nor a provider of this package; the closest is "stripe"/,
  );
});

it('takes a native type of a provider of this package without an endpoint here, not an unknown kind', async () => {
  const unknownKind = startTestApp({
    platform: 'express',
    database: 'sqlite',
    handlers: [UnconfiguredKindHandlers],
    webhooks: { endpoints: [stripeEndpoint({ name: 'stripe', secret: SECRET })] },
  });
  expect((await startupError(unknownKind)).message).toContain(
    'subscribes to "github:push", which no event can carry: "github" is neither',
  );
  const app = await startTestApp({
    platform: 'express',
    database: 'sqlite',
    handlers: [UnconfiguredKindHandlers],
    webhooks: {
      endpoints: [
        stripeEndpoint({ name: 'stripe', secret: SECRET }),
        hmacEndpoint({ name: 'hooks', kind: 'github', secret: SECRET }),
      ],
    },
  });
  await app.close();
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
