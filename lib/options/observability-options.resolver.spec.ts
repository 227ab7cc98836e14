import { Registry } from 'prom-client';
import { WebhookConfigurationError } from '../core/webhook-errors';
import { stripeEndpoint } from '../providers/endpoints';
import { resolveWebhooksOptions } from './webhooks-options.resolver';
import { WebhookObservabilityOptions } from './webhooks-observability-options.interface';

describe('observability options', () => {
  const stripe = stripeEndpoint({ name: 'stripe', secret: 'whsec_abc' });
  const resolve = (observability?: WebhookObservabilityOptions) =>
    resolveWebhooksOptions({ endpoints: [stripe], observability }).observability;

  it('fills every default: metrics off, default thresholds, no silence expected', () => {
    expect(resolve()).toEqual({
      journal: 'line',
      metrics: null,
      health: { maxPendingBacklog: 1000, maxOldestPendingMs: 900_000, maxDeadLetters: null },
      alerts: {
        enabled: false,
        onAlert: undefined,
        signatureFailureThreshold: 5,
        signatureFailureWindowMs: 600_000,
        paymentEventThreshold: 20,
      },
      expectDeliveryWithinMs: new Map(),
      sampleCacheMs: 5000,
    });
  });

  it('turns metrics on with the default prefix, or with the given registry and prefix', () => {
    expect(resolve({ metrics: true }).metrics).toEqual({ prefix: 'payment_webhooks_' });
    expect(resolve({ metrics: false }).metrics).toBeNull();
    const registry = new Registry();
    expect(resolve({ metrics: { registry, prefix: 'shop_' } }).metrics).toEqual({
      registry,
      prefix: 'shop_',
    });
  });

  it('keeps the expected gaps per endpoint and the thresholds given', () => {
    const onAlert = () => undefined;
    const resolved = resolve({
      expectDeliveryWithinMs: { stripe: 3_600_000 },
      health: { maxDeadLetters: 0, maxPendingBacklog: 50 },
      alerts: { onAlert, paymentEventThreshold: 3 },
    });
    expect(resolved.expectDeliveryWithinMs).toEqual(new Map([['stripe', 3_600_000]]));
    expect(resolved.health).toEqual({
      maxPendingBacklog: 50,
      maxOldestPendingMs: 900_000,
      maxDeadLetters: 0,
    });
    expect(resolved.alerts.onAlert).toBe(onAlert);
    expect(resolved.alerts.paymentEventThreshold).toBe(3);
  });

  it.each<[string, WebhookObservabilityOptions, RegExp]>([
    [
      'an unknown endpoint',
      { expectDeliveryWithinMs: { strpe: 60_000 } },
      /"strpe".*endpoints: stripe/,
    ],
    ['a gap under a second', { expectDeliveryWithinMs: { stripe: 500 } }, /at least 1000/],
    ['a prefix that is not a metric name', { metrics: { prefix: '9-shop' } }, /metrics.prefix/],
    ['a registry that is not one', { metrics: { registry: {} as never } }, /prom-client Registry/],
    ['a fractional threshold', { health: { maxPendingBacklog: 1.5 } }, /maxPendingBacklog/],
    ['a negative dead-letter limit', { health: { maxDeadLetters: -1 } }, /non-negative/],
    ['a zero signature threshold', { alerts: { signatureFailureThreshold: 0 } }, /at least 1/],
    ['an onAlert that is not a function', { alerts: { onAlert: 'x' as never } }, /onAlert/],
    ['a negative cache', { sampleCacheMs: -1 }, /sampleCacheMs/],
  ])('fails at startup on %s, naming the option', (_case, observability, message) => {
    expect(() => resolve(observability)).toThrow(WebhookConfigurationError);
    expect(() => resolve(observability)).toThrow(message);
  });
});
