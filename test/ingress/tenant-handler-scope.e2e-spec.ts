import { Injectable } from '@nestjs/common';
import {
  OnPaymentEvent,
  stripeEndpoint,
  tenantEndpoint,
  type PaymentEvent,
  type WebhookContext,
} from 'nestjs-payment-webhooks';
import { post } from '../support/http';
import { startRouterApp } from '../support/router-app';
import { signedStripeEvent } from '../support/stripe-event';
import { eventually, startTestApp } from '../support/test-app';

/**
 * Which handlers a tenant endpoint's events go to, beside endpoints of the app's own: only those
 * that name it (or '*'); a handler that names no endpoint refuses startup there, naming the fix,
 * so merchant acme's order-1 is never taken for the shop's order-1.
 */

const SECRETS: Record<string, readonly string[]> = { acme: ['whsec_tenant_scope_acme'] };

function merchantsEndpoint() {
  return tenantEndpoint(stripeEndpoint, {
    name: 'merchants',
    resolveTenant: async ({ tenant }) => {
      const secret = SECRETS[tenant];
      return secret ? { secret } : null;
    },
  });
}

/** The shop's own payments and its merchants', each handler naming the endpoint it is for. */
const OWN: string[] = [];
const MERCHANTS: string[] = [];

@Injectable()
class ShopAndMerchants {
  @OnPaymentEvent('payment.succeeded', { endpoint: 'stripe' })
  own(event: PaymentEvent): void {
    OWN.push(event.merchantRef ?? '');
  }

  @OnPaymentEvent('payment.succeeded', { endpoint: 'merchants' })
  merchants(event: PaymentEvent, ctx: WebhookContext): void {
    MERCHANTS.push(`${ctx.tenant}/${event.merchantRef}`);
  }
}

@Injectable()
class UnscopedPayments {
  @OnPaymentEvent('payment.succeeded')
  paid(): void {}
}

describe("tenants' events and the app's own", () => {
  const endpoints = () => [
    merchantsEndpoint(),
    stripeEndpoint({ name: 'stripe', secret: 'whsec_tenant_plain' }),
  ];
  const NAMES_THE_FIX =
    /Handler "UnscopedPayments\.paid" names no endpoint, .* 'stripe' and those of every tenant of 'merchants'.* Give it `endpoint`: 'stripe' for the app's own events, 'merchants' for the tenants', or '\*' for every endpoint's/;

  it('refuses to start a Nest app whose handler names no endpoint, naming the fix', async () => {
    await expect(
      startTestApp({
        platform: 'express',
        database: 'sqlite',
        webhooks: { endpoints: endpoints() },
        handlers: [UnscopedPayments],
      }),
    ).rejects.toThrow(NAMES_THE_FIX);
  });

  it('refuses to mount a router whose handler names no endpoint, naming the fix', async () => {
    await expect(
      startRouterApp({
        database: 'sqlite',
        webhooks: { endpoints: endpoints() },
        handlers: [{ on: 'payment.succeeded', name: 'UnscopedPayments.paid', handle: () => {} }],
      }),
    ).rejects.toThrow(NAMES_THE_FIX);
  });

  it("runs a handler given endpoint '*' for every endpoint, tenants' and the app's own", async () => {
    OWN.length = 0;
    const app = await startRouterApp({
      database: 'sqlite',
      webhooks: { endpoints: endpoints(), dispatch: { pollIntervalMs: 50 } },
      handlers: [
        {
          on: 'payment.succeeded',
          name: 'EveryPayment.paid',
          endpoint: '*',
          handle: (event, ctx) => void OWN.push(`${ctx.tenant}/${event.merchantRef}`),
        },
      ],
    });
    try {
      const own = signedStripeEvent('whsec_tenant_plain', { orderId: 'order-7' });
      const acme = signedStripeEvent(SECRETS.acme[0], { orderId: 'order-7' });
      await post(`${app.url}/webhooks/stripe`, own.body, own.headers);
      await post(`${app.url}/webhooks/merchants/acme`, acme.body, acme.headers);
      await eventually(() => OWN.length === 2);
      expect(OWN.sort()).toEqual(['acme/order-7', 'null/order-7']);
    } finally {
      await app.close();
    }
  });

  it("starts a handler that names no endpoint where every endpoint is a tenant's", async () => {
    const app = await startTestApp({
      platform: 'express',
      database: 'sqlite',
      webhooks: { endpoints: [merchantsEndpoint()] },
      handlers: [UnscopedPayments],
    });
    await app.close();
  });

  it("runs the shop's handler for its own order-1 and the merchant's for acme's order-1, never crossed", async () => {
    OWN.length = 0;
    MERCHANTS.length = 0;
    const app = await startTestApp({
      platform: 'express',
      database: 'sqlite',
      webhooks: { endpoints: endpoints(), dispatch: { pollIntervalMs: 50 } },
      handlers: [ShopAndMerchants],
    });
    try {
      const own = signedStripeEvent('whsec_tenant_plain', { orderId: 'order-1' });
      const acme = signedStripeEvent(SECRETS.acme[0], { orderId: 'order-1' });
      expect((await post(`${app.url}/webhooks/stripe`, own.body, own.headers)).status).toBe(200);
      expect(
        (await post(`${app.url}/webhooks/merchants/acme`, acme.body, acme.headers)).status,
      ).toBe(200);
      await eventually(() => OWN.length + MERCHANTS.length === 2);
      expect({ OWN, MERCHANTS }).toEqual({ OWN: ['order-1'], MERCHANTS: ['acme/order-1'] });
    } finally {
      await app.close();
    }
  });
});
