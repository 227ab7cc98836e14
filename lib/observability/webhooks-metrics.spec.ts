import { register, Registry } from 'prom-client';
import { stripeEndpoint } from '../providers/endpoints';
import { resolveWebhooksOptions } from '../options/webhooks-options.resolver';
import { InboxSample, InboxSampler } from './inbox-sampler';
import { WebhookObservabilityOptions } from '../options/webhooks-observability-options.interface';
import { WebhooksMetrics } from './webhooks-metrics';
import { WebhookTelemetry } from '../telemetry/webhook-telemetry';

const endpoints = [stripeEndpoint({ name: 'stripe', secret: 'whsec_abc' })];

/** A sampler with a fixed inbox sample, standing in for the database. */
function fixedSampler(sample: Partial<InboxSample> = {}, lastDelivery?: Date): InboxSampler {
  return {
    startedAt: new Date(Date.now() - 60_000),
    sample: async () => ({
      takenAt: new Date(),
      databaseUp: true,
      depth: new Map([['stripe', { pending: 0, processing: 0, retrying: 0, dead: 0 }]]),
      oldestPendingAt: new Map(),
      paused: [],
      ...sample,
    }),
    lastDeliveryAt: () => lastDelivery ?? null,
    countPaymentEvents: async () => 1,
  } as unknown as InboxSampler;
}

function metricsWith(
  observability: WebhookObservabilityOptions,
  sampler = fixedSampler(),
  telemetry = new WebhookTelemetry(),
): WebhooksMetrics {
  const options = resolveWebhooksOptions({ endpoints, observability });
  return new WebhooksMetrics(options, telemetry, sampler);
}

describe('WebhooksMetrics', () => {
  it('registers prefixed metrics on the given registry and serves its text exposition', async () => {
    const registry = new Registry();
    const telemetry = new WebhookTelemetry();
    const metrics = metricsWith(
      { metrics: { registry, prefix: 'shop_' } },
      fixedSampler(),
      telemetry,
    );
    metrics.start();
    telemetry.delivery({
      requestId: 'r1',
      endpoint: 'stripe',
      provider: 'stripe',
      decision: 'accepted',
      status: 200,
      latencyMs: 12,
      receivedAt: new Date(),
    });
    const text = await metrics.metrics();
    expect(text).toContain(
      'shop_deliveries_total{endpoint="stripe",provider="stripe",decision="accepted"} 1',
    );
    expect(text).toContain('shop_inbox_depth{endpoint="stripe",status="pending"} 0');
    expect(text).toContain('shop_oldest_pending_age_seconds{endpoint="stripe"} 0');
    expect(text).toContain('shop_database_up 1');
    expect(metrics.contentType).toBe(registry.contentType);
    metrics.stop();
    expect(registry.getMetricsAsArray()).toHaveLength(0);
  });

  it('reports each pause of dispatch in force, and none once lifted', async () => {
    const registry = new Registry();
    const pause = { pausedAt: new Date(), pausedBy: 'carol', reason: 'ERP down' };
    const metrics = metricsWith(
      { metrics: { registry, prefix: 'shop_' } },
      fixedSampler({
        paused: [
          { ...pause, endpoint: 'stripe', handler: '*' },
          { ...pause, endpoint: '*', handler: 'Orders.onPaid' },
        ],
      }),
    );
    metrics.start();
    const text = await metrics.metrics();
    expect(text).toContain('shop_dispatch_paused{endpoint="stripe",handler="*"} 1');
    expect(text).toContain('shop_dispatch_paused{endpoint="*",handler="Orders.onPaid"} 1');
    metrics.stop();

    const lifted = metricsWith({ metrics: { registry, prefix: 'shop_' } });
    lifted.start();
    expect(await lifted.metrics()).not.toMatch(/shop_dispatch_paused\{/);
    lifted.stop();
  });

  it('reports the time since the last delivery, or since the start when none is known', async () => {
    const registry = new Registry();
    const never = metricsWith({ metrics: { registry } });
    never.start();
    const age = async () =>
      Number(
        /payment_webhooks_last_delivery_age_seconds\{endpoint="stripe"\} (\S+)/.exec(
          await registry.metrics(),
        )?.[1],
      );
    expect(await age()).toBeGreaterThanOrEqual(60);
    never.stop();

    const recent = metricsWith(
      { metrics: { registry } },
      fixedSampler({}, new Date(Date.now() - 5000)),
    );
    recent.start();
    expect(await age()).toBeGreaterThanOrEqual(5);
    expect(await age()).toBeLessThan(60);
    recent.stop();
  });

  it('lets a second application register on the default registry once the first has closed', () => {
    const first = metricsWith({ metrics: true });
    first.start();
    expect(register.getSingleMetric('payment_webhooks_deliveries_total')).toBeDefined();
    const second = metricsWith({ metrics: true });
    expect(() => second.start()).toThrow(
      /"payment_webhooks_\w+" is already registered.*own `observability.metrics.registry`/,
    );
    first.stop();
    expect(register.getSingleMetric('payment_webhooks_deliveries_total')).toBeUndefined();
    second.start();
    expect(register.getSingleMetric('payment_webhooks_deliveries_total')).toBeDefined();
    second.stop();
  });

  it('registers nothing when one of its names is taken', async () => {
    const registry = new Registry();
    const { Gauge } = await import('prom-client');
    new Gauge({ name: 'payment_webhooks_database_up', help: 'mine', registers: [registry] });
    const metrics = metricsWith({ metrics: { registry } });
    expect(() => metrics.start()).toThrow(/"payment_webhooks_database_up"/);
    expect(registry.getMetricsAsArray().map((metric) => metric.name)).toEqual([
      'payment_webhooks_database_up',
    ]);
  });

  it('refuses to serve metrics while they are off, naming the option', async () => {
    const metrics = metricsWith({});
    metrics.start();
    expect(metrics.enabled).toBe(false);
    await expect(metrics.metrics()).rejects.toThrow(/observability: \{ metrics: true \}/);
  });

  it('fails at startup naming `npm i prom-client` when metrics are on and it is missing', () => {
    jest.isolateModules(() => {
      jest.doMock('prom-client', () => {
        throw Object.assign(
          new Error("Cannot find module 'prom-client' from 'prom-client.loader.ts'"),
          {
            code: 'MODULE_NOT_FOUND',
          },
        );
      });
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const isolated = require('./webhooks-metrics') as typeof import('./webhooks-metrics');
      const options = resolveWebhooksOptions({ endpoints, observability: { metrics: true } });
      const metrics = new isolated.WebhooksMetrics(options, new WebhookTelemetry(), fixedSampler());
      expect(() => metrics.start()).toThrow(/run `npm i prom-client`/);
    });
    jest.dontMock('prom-client');
  });

  it('never turns the name of an unknown endpoint into a label value', async () => {
    const registry = new Registry();
    const telemetry = new WebhookTelemetry();
    const metrics = metricsWith({ metrics: { registry } }, fixedSampler(), telemetry);
    metrics.start();
    for (let i = 0; i < 3; i += 1) {
      telemetry.delivery({
        requestId: `r${i}`,
        endpoint: `probe-${i}`,
        decision: 'unknown_endpoint',
        status: 404,
        latencyMs: 1,
        receivedAt: new Date(),
      });
    }
    const text = await metrics.metrics();
    expect(text).not.toContain('probe-');
    expect(text).toContain(
      'payment_webhooks_deliveries_total{endpoint="(unknown)",provider="(unknown)",decision="unknown_endpoint"} 3',
    );
    metrics.stop();
  });
});
