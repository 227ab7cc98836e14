import { WebhookConfigurationError } from '../core/webhook-errors';
import { qvardEndpoint, stripeEndpoint } from '../providers/endpoints';
import { tenantEndpoint } from '../tenants/tenant-endpoint';
import { resolvedOptionsOf, resolveWebhooksOptions } from './webhooks-options.resolver';

describe('resolveWebhooksOptions', () => {
  const stripe = stripeEndpoint({ name: 'stripe', secret: 'whsec_abc' });

  it('fills every default', () => {
    const resolved = resolveWebhooksOptions({ endpoints: [stripe] });
    expect(resolved.endpoints.get('stripe')).toBe(stripe);
    expect(resolved.dispatch).toEqual({
      enabled: true,
      concurrency: 4,
      pollIntervalMs: 1000,
      leaseMs: 30_000,
      shutdownTimeoutMs: 10_000,
      maxAttempts: 25,
      baseDelayMs: 5000,
      maxDelayMs: 10_800_000,
      transport: null,
      batch: null,
      inline: null,
      pauseAfterFailures: 0,
    });
    expect(resolved.trustProxy).toBe(false);
    expect(resolved.storeTimeoutMs).toBe(2000);
    expect(resolved.storage).toEqual({ preparedStatements: true, vacuumWorkEvery: 10_000 });
  });

  it('fills the defaults of dispatch.batch: true and keeps what is given', () => {
    const batch = (value: unknown) =>
      resolveWebhooksOptions({ endpoints: [stripe], dispatch: { batch: value as never } }).dispatch
        .batch;
    expect(batch(true)).toEqual({ size: 8, waitMs: 2, handlerBoundMs: 250 });
    expect(batch(false)).toBeNull();
    expect(batch({ size: 16, waitMs: 0 })).toEqual({ size: 16, waitMs: 0, handlerBoundMs: 250 });
  });

  it.each([
    ['yes', 'dispatch.batch'],
    [{ size: 0 }, 'dispatch.batch.size'],
    [{ waitMs: -1 }, 'dispatch.batch.waitMs'],
    [{ handlerBoundMs: 1.5 }, 'dispatch.batch.handlerBoundMs'],
  ])('refuses dispatch.batch %j, naming %s', (value, option) => {
    expect(() =>
      resolveWebhooksOptions({ endpoints: [stripe], dispatch: { batch: value as never } }),
    ).toThrow(new RegExp(`\`${option.replace(/\./g, '\\.')}\``));
  });

  it('fills the defaults of dispatch.inline: true and keeps what is given', () => {
    const inline = (value: unknown) =>
      resolveWebhooksOptions({ endpoints: [stripe], dispatch: { inline: value as never } }).dispatch
        .inline;
    expect(inline(true)).toEqual({ boundMs: 250, slowHandlerMs: 10 });
    expect(inline(false)).toBeNull();
    expect(inline({ boundMs: 40 })).toEqual({ boundMs: 40, slowHandlerMs: 10 });
    expect(inline({ slowHandlerMs: 3 })).toEqual({ boundMs: 250, slowHandlerMs: 3 });
  });

  it.each([
    ['on', 'dispatch.inline'],
    [{ boundMs: 0 }, 'dispatch.inline.boundMs'],
    [{ boundMs: 2.5 }, 'dispatch.inline.boundMs'],
    [{ slowHandlerMs: -1 }, 'dispatch.inline.slowHandlerMs'],
  ])('refuses dispatch.inline %j, naming %s', (value, option) => {
    expect(() =>
      resolveWebhooksOptions({ endpoints: [stripe], dispatch: { inline: value as never } }),
    ).toThrow(new RegExp(`\`${option.replace(/\./g, '\\.')}\``));
  });

  it.each([100, 2500, 30_000])('takes a storeTimeoutMs of %j', (storeTimeoutMs) => {
    expect(resolveWebhooksOptions({ endpoints: [stripe], storeTimeoutMs }).storeTimeoutMs).toBe(
      storeTimeoutMs,
    );
  });

  it.each([0, -1, 2, 99, 1500.5, 30_001, 2_000_000, '2000', Number.NaN])(
    'refuses a storeTimeoutMs of %j, naming the range in milliseconds',
    (storeTimeoutMs) => {
      const resolve = () =>
        resolveWebhooksOptions({ endpoints: [stripe], storeTimeoutMs } as never);
      expect(resolve).toThrow(WebhookConfigurationError);
      expect(resolve).toThrow(
        /`storeTimeoutMs` must be a whole number of milliseconds from 100 to 30000/,
      );
    },
  );

  it('keeps two endpoints of one kind side by side', () => {
    const live = stripeEndpoint({ name: 'stripe-live', secret: 'whsec_live' });
    const test = stripeEndpoint({ name: 'stripe-test', secret: 'whsec_test' });
    expect([...resolveWebhooksOptions({ endpoints: [live, test] }).endpoints.keys()]).toEqual([
      'stripe-live',
      'stripe-test',
    ]);
  });

  it.each([
    [{ endpoints: [] }, /at least one endpoint/],
    [{ endpoints: [stripe, qvardEndpoint({ name: 'stripe', secret: 'x' })] }, /unique `name`/],
    [{ endpoints: [{ name: 'stripe' }] }, /stripeEndpoint\(\{ name, secret \}\)/],
    [{ endpoints: [stripe], dispatch: { concurrency: 0 } }, /dispatch.concurrency/],
    [{ endpoints: [stripe], dispatch: { retry: { maxAttempts: 1.5 } } }, /maxAttempts/],
    [{ endpoints: [stripe], dispatch: { pauseAfterFailures: -1 } }, /dispatch.pauseAfterFailures/],
    [{ endpoints: [stripe], dispatch: { pauseAfterFailures: 2.5 } }, /dispatch.pauseAfterFailures/],
    [
      { endpoints: [stripe], dispatch: { retry: { baseDelayMs: 10, maxDelayMs: 5 } } },
      /maxDelayMs/,
    ],
    [{ endpoints: [stripe], storage: { sqliteIntakePath: ' ' } }, /storage.sqliteIntakePath/],
    [
      { endpoints: [stripe], storage: { preparedStatements: 'no' as unknown as boolean } },
      /storage.preparedStatements/,
    ],
  ])('refuses %j with a message naming the fix', (options, message) => {
    expect(() => resolveWebhooksOptions(options as never)).toThrow(WebhookConfigurationError);
    expect(() => resolveWebhooksOptions(options as never)).toThrow(message);
  });

  it('takes resolved options as they are, also as a copy or behind a proxy (an instrumenting agent)', () => {
    const resolved = resolveWebhooksOptions({ endpoints: [stripe] });
    const copy = { ...resolved };
    const wrapped = new Proxy(resolved, {});

    expect(resolvedOptionsOf(resolved)).toBe(resolved);
    expect(resolvedOptionsOf(copy)).toBe(copy);
    expect(resolvedOptionsOf(wrapped)).toBe(wrapped);
  });

  it("resolves a user's options even when they look resolved (endpoints as a map)", () => {
    const given = { endpoints: new Map([['stripe', stripe]]) };

    expect(() => resolvedOptionsOf(given as never)).toThrow(WebhookConfigurationError);
  });

  describe('snapshotEndpoint', () => {
    const thin = (snapshotEndpoint: string, name = 'stripe-thin') =>
      stripeEndpoint({ name, secret: 'whsec_thin', snapshotEndpoint });

    it('pairs a thin endpoint with the snapshot endpoint it names, and no other endpoint', () => {
      const other = stripeEndpoint({ name: 'stripe-other', secret: 'whsec_other' });
      const resolved = resolveWebhooksOptions({ endpoints: [stripe, thin('stripe'), other] });
      expect([...resolved.snapshotPairs]).toEqual([
        ['stripe-thin', 'stripe'],
        ['stripe', 'stripe'],
      ]);
      expect(resolveWebhooksOptions({ endpoints: [stripe, other] }).snapshotPairs.size).toBe(0);
    });

    it('pairs tenant endpoints by name, each tenant keeping its own events', () => {
      const resolveTenant = () => ({ secret: 'whsec_tenant' });
      const resolved = resolveWebhooksOptions({
        endpoints: [
          tenantEndpoint(stripeEndpoint, { name: 'merchants', resolveTenant }),
          tenantEndpoint(stripeEndpoint, {
            name: 'merchants-thin',
            snapshotEndpoint: 'merchants',
            resolveTenant,
          }),
        ],
      });
      expect(resolved.snapshotPairs.get('merchants-thin')).toBe('merchants');
    });

    it.each([
      ['names no endpoint', [stripe, thin('stripe-live')], /no endpoint is named so/],
      [
        'names an endpoint of another provider',
        [qvardEndpoint({ name: 'qvard', secret: 'x' }), thin('qvard')],
        /"qvard" is a qvard endpoint, not a Stripe one/,
      ],
      ['names itself', [stripe, thin('stripe-thin')], /names the endpoint itself/],
      [
        'names another thin endpoint',
        [stripe, thin('stripe'), thin('stripe-thin', 'stripe-thin-2')],
        /"stripe-thin" is itself paired with "stripe"/,
      ],
    ])('refuses a snapshotEndpoint that %s, naming the fix', (_, endpoints, why) => {
      const resolve = () => resolveWebhooksOptions({ endpoints });
      expect(resolve).toThrow(WebhookConfigurationError);
      expect(resolve).toThrow(why);
      expect(resolve).toThrow(
        /Set snapshotEndpoint only on the Stripe endpoint of event notifications/,
      );
    });

    it('refuses a snapshotEndpoint that is not a name', () => {
      expect(() => thin('')).toThrow(/snapshotEndpoint must be the name of the endpoint/);
    });
  });
});
