import 'reflect-metadata';
import { Registry } from 'prom-client';
import {
  stripeEndpoint,
  WebhookAlert,
  WebhookAlerts,
  WebhooksHealthIndicator,
  WebhooksMetrics,
  WebhooksModuleOptions,
} from 'nestjs-payment-webhooks';
import { post } from '../support/http';
import { signedStripeEvent } from '../support/stripe-event';
import { eventually, startTestApp, TestApp } from '../support/test-app';

/**
 * Metrics, alerts and the admin routes exist only when the options ask for them; health is
 * always there. Under forRootAsync() the options arrive after the module is built, so the parts
 * are registered and stay idle when the options turn them off.
 */

const SECRET = 'whsec_optional_parts_e2e';
const STRIPE = stripeEndpoint({ name: 'stripe', secret: SECRET });

async function badSignatures(app: TestApp, count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    const event = signedStripeEvent('whsec_not_the_endpoint_secret');
    expect((await post(`${app.url}/webhooks/stripe`, event.body, event.headers)).status).toBe(400);
  }
}

describe('an app that configures neither metrics nor alerts nor admin routes (forRoot)', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({
      platform: 'express',
      database: 'sqlite',
      webhooks: { endpoints: [STRIPE] },
    });
  });
  afterAll(() => app.close());

  it('registers no metrics and no alerts, and mounts no admin routes', async () => {
    expect(() => app.app.get(WebhooksMetrics, { strict: false })).toThrow();
    expect(() => app.app.get(WebhookAlerts, { strict: false })).toThrow();
    expect((await fetch(`${app.url}/webhooks-admin/stats`)).status).toBe(404);
  });

  it('still reports health and stores a signed delivery', async () => {
    const event = signedStripeEvent(SECRET);
    expect((await post(`${app.url}/webhooks/stripe`, event.body, event.headers)).status).toBe(200);
    const report = await app.app.get(WebhooksHealthIndicator).checkHealth();
    expect(report.status).toBe('up');
  });
});

describe('an app that configures metrics and alerts (forRoot)', () => {
  let app: TestApp;
  const alerts: WebhookAlert[] = [];
  const registry = new Registry();
  beforeAll(async () => {
    app = await startTestApp({
      platform: 'express',
      database: 'sqlite',
      webhooks: {
        endpoints: [STRIPE],
        observability: {
          metrics: { registry },
          alerts: { signatureFailureThreshold: 2 },
        },
      },
    });
    app.app.get(WebhookAlerts).subscribe((alert) => void alerts.push(alert));
  });
  afterAll(() => app.close());

  it('serves the metrics and raises an alert for a run of bad signatures', async () => {
    await badSignatures(app, 2);
    await eventually(() => alerts.some((alert) => alert.kind === 'signature_failures'));
    const metrics = app.app.get(WebhooksMetrics);
    expect(metrics.enabled).toBe(true);
    expect(await metrics.metrics()).toMatch(
      /payment_webhooks_deliveries_total\{[^}]*decision="rejected_signature"[^}]*\} 2/,
    );
  });
});

describe('an app whose forRootAsync() factory leaves metrics and alerts off', () => {
  let app: TestApp;
  const webhooks: WebhooksModuleOptions = { endpoints: [STRIPE] };
  beforeAll(async () => {
    app = await startTestApp({ platform: 'express', database: 'sqlite', async: true, webhooks });
  });
  afterAll(() => app.close());

  it('keeps them idle: no metrics served, no alert raised', async () => {
    const heard: WebhookAlert[] = [];
    app.app.get(WebhookAlerts).subscribe((alert) => void heard.push(alert));
    await badSignatures(app, 6);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(heard).toEqual([]);
    const metrics = app.app.get(WebhooksMetrics);
    expect(metrics.enabled).toBe(false);
    await expect(metrics.metrics()).rejects.toThrow(/Webhook metrics are off/);
  });
});
