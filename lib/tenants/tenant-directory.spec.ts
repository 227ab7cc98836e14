import { WebhookConfigurationError } from '../core/webhook-errors';
import { stripeEndpoint } from '../providers/stripe/stripe.provider';
import { tbankEndpoint } from '../providers/tbank/tbank.provider';
import { TenantDirectory, TenantUnavailableError } from './tenant-directory';
import { tenantEndpoint } from './tenant-endpoint';
import type { TenantLookup } from './tenant-lookup';

/** What every directory here is made of: Stripe endpoints named "merchants". */
const STRIPE = {
  endpoint: 'merchants',
  kind: 'stripe',
  build: (settings: object) =>
    stripeEndpoint({ name: 'merchants', ...(settings as { secret: string }) }),
};

/** A Stripe tenant directory over a map of secrets, on a clock of its own, counting what it was asked. */
function directoryOver(
  secrets: Record<string, string>,
  cache: ConstructorParameters<typeof TenantDirectory>[0]['cache'] = {},
) {
  const asked: string[] = [];
  let now = 1_000_000;
  const resolve = ({ tenant }: TenantLookup) => {
    asked.push(tenant);
    return secrets[tenant] === undefined ? null : { secret: secrets[tenant] };
  };
  const directory = new TenantDirectory({ ...STRIPE, resolve, cache }, () => now);
  return { directory, asked, advance: (ms: number) => (now += ms) };
}

describe('TenantDirectory', () => {
  it("builds a tenant's endpoint with its own secret, and asks once within ttlMs", async () => {
    const { directory, asked, advance } = directoryOver({ acme: 'whsec_acme' }, { ttlMs: 1_000 });
    const first = await directory.endpointOf('acme');
    expect(first?.provider.kind).toBe('stripe');
    expect(first?.name).toBe('merchants');
    expect(await directory.endpointOf('acme')).toBe(first);
    expect(asked).toEqual(['acme']);
    advance(1_001);
    expect(await directory.endpointOf('acme')).not.toBe(first);
    expect(asked).toEqual(['acme', 'acme']);
  });

  it('answers an unknown tenant null, and asks again after unknownTtlMs', async () => {
    const { directory, asked, advance } = directoryOver({}, { ttlMs: 60_000, unknownTtlMs: 500 });
    expect(await directory.endpointOf('ghost')).toBeNull();
    expect(await directory.endpointOf('ghost')).toBeNull();
    expect(asked).toEqual(['ghost']);
    advance(501);
    expect(await directory.endpointOf('ghost')).toBeNull();
    expect(asked).toEqual(['ghost', 'ghost']);
  });

  it.each([
    ['a path', '../admin'],
    ['an encoded slash', 'a%2Fb'],
    ['a dot', '.'],
    ['an empty name', ''],
    ['a name over 64 characters', 'a'.repeat(65)],
    ['a space', 'acme shop'],
    ['a NUL', 'acme\u0000'],
  ])('never asks about %s', async (_, name) => {
    const { directory, asked } = directoryOver({ [name]: 'whsec_x' });
    expect(await directory.endpointOf(name)).toBeNull();
    expect(asked).toEqual([]);
    expect(directory.size).toBe(0);
  });

  it('keeps at most maxTenants unknown ones whatever is asked, and never loses a known one to them', async () => {
    const { directory, asked } = directoryOver({ acme: 'whsec_acme' }, { maxTenants: 50 });
    const acme = await directory.endpointOf('acme');
    for (let i = 0; i < 1_000; i++) {
      expect(await directory.endpointOf(`ghost-${i}`)).toBeNull();
    }
    expect(directory.size).toBe(51);
    expect(asked).toHaveLength(1_001);
    // NOTE: the least recently used went first: the last fifty are still known as unknown.
    await directory.endpointOf('ghost-999');
    expect(await directory.endpointOf('acme')).toBe(acme);
    expect(asked).toHaveLength(1_001);
  });

  it('resolves a tenant once for deliveries that wait for it together', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let calls = 0;
    const directory = new TenantDirectory({
      endpoint: 'merchants',
      kind: 'stripe',
      build: (settings) =>
        stripeEndpoint({ name: 'merchants', ...(settings as { secret: string }) }),
      resolve: async () => {
        calls += 1;
        await gate;
        return { secret: 'whsec_acme' };
      },
    });
    const waiting = Array.from({ length: 20 }, () => directory.endpointOf('acme'));
    release();
    const endpoints = await Promise.all(waiting);
    expect(calls).toBe(1);
    expect(new Set(endpoints).size).toBe(1);
  });

  it.each([
    ['throws', () => Promise.reject(new Error('connection refused')), /failed: connection refused/],
    ['never answers', () => new Promise(() => undefined), /did not answer within 50 ms/],
    ['returns a string', () => 'whsec_acme', /not an object of options/],
    ['returns a secret Stripe refuses', () => ({ secret: 'sk_live_123' }), /cannot use/],
  ])('is unavailable when the resolver %s, and remembers nothing', async (_, resolve, message) => {
    const directory = new TenantDirectory({
      endpoint: 'merchants',
      kind: 'stripe',
      build: (settings) =>
        stripeEndpoint({ name: 'merchants', ...(settings as { secret: string }) }),
      resolve,
      resolveTimeoutMs: 50,
    });
    const error = await directory.endpointOf('acme').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(TenantUnavailableError);
    expect((error as Error).message).toMatch(message);
    expect(directory.size).toBe(0);
  });

  it("refuses settings that change the endpoint's provider kind", async () => {
    const directory = new TenantDirectory({
      ...STRIPE,
      build: () => tbankEndpoint({ name: 'merchants', password: 'tbank-password' }),
      resolve: () => ({}),
    });
    await expect(directory.endpointOf('acme')).rejects.toThrow(/a tbank endpoint of a stripe one/);
  });

  it.each([
    [{ ttlMs: -1 }, /tenantCache.ttlMs must be a whole number between 0 and 86400000/],
    [
      { ttlMs: 1_000, unknownTtlMs: 2_000 },
      /unknownTtlMs must be a whole number between 0 and 1000/,
    ],
    [{ maxTenants: 0 }, /maxTenants must be a whole number between 1 and 1000000/],
  ])('refuses the cache bounds %j at startup', (cache, message) => {
    expect(() =>
      tenantEndpoint(stripeEndpoint, {
        name: 'merchants',
        resolveTenant: () => null,
        tenantCache: cache,
      }),
    ).toThrow(message);
  });
});

describe('tenantEndpoint()', () => {
  it("takes the factory's kind and methods, the endpoint's own options, and no secret", () => {
    const endpoint = tenantEndpoint(stripeEndpoint, {
      name: 'merchants',
      maxBodyBytes: 4_096,
      allowedIps: ['10.0.0.0/8'],
      resolveTenant: () => null,
    });
    expect(endpoint.provider.kind).toBe('stripe');
    expect(endpoint.maxBodyBytes).toBe(4_096);
    expect(endpoint.allowedSources?.allows('10.1.2.3')).toBe(true);
    expect(endpoint.allowedSources?.allows('192.0.2.1')).toBe(false);
    expect(() =>
      endpoint.provider.verify({ rawBody: Buffer.alloc(0), headers: {}, receivedAt: new Date() }),
    ).toThrow(WebhookConfigurationError);
  });

  it('gives each tenant the shared provider options, its own winning, and the endpoint options unchanged', async () => {
    const endpoint = tenantEndpoint(stripeEndpoint, {
      name: 'merchants',
      maxBodyBytes: 4_096,
      toleranceSeconds: 60,
      merchantRefKey: 'cart',
      resolveTenant: () =>
        ({ secret: 'whsec_acme', merchantRefKey: 'order', maxBodyBytes: 1 }) as never,
    });
    const own = await endpoint.tenants.endpointOf('acme');
    expect(own?.maxBodyBytes).toBe(4_096);
    const body = JSON.stringify({
      id: 'evt_1',
      type: 'payment_intent.succeeded',
      created: 1,
      data: { object: { id: 'pi_1', metadata: { order: 'o-1', cart: 'c-1' } } },
    });
    const notification = own!.provider.normalize({
      rawBody: Buffer.from(body),
      headers: {},
      receivedAt: new Date(),
    });
    expect(notification).toMatchObject({ eventId: 'evt_1', merchantRef: 'o-1' });
  });

  it('takes recover where the provider keeps an event log, as far back as it reaches, and builds each tenant without it', async () => {
    const endpoint = tenantEndpoint(stripeEndpoint, {
      name: 'merchants',
      recover: { everyMs: 3_600_000 },
      resolveTenant: () => ({ secret: 'whsec_acme' }),
    });
    expect(endpoint.recover).toEqual({ everyMs: 3_600_000, lookBackMs: 3 * 86_400_000 });
    // A tenant without API credentials still takes deliveries.
    const own = await endpoint.tenants.endpointOf('acme');
    expect(own).toMatchObject({ name: 'merchants' });
    expect(own?.recover).toBeUndefined();
    expect(() =>
      tenantEndpoint(stripeEndpoint, {
        name: 'merchants',
        recover: { lookBackMs: 31 * 86_400_000 },
        resolveTenant: () => null,
      }),
    ).toThrow(/lookBackMs must be a whole number of milliseconds from 60000 to the 2592000000/);
    expect(() =>
      tenantEndpoint(tbankEndpoint, { name: 'shops', recover: {}, resolveTenant: () => null }),
    ).toThrow(/recover needs an event log to read/);
  });

  it('refuses a factory without a kind, and a missing resolver, naming the fix', () => {
    const untagged = (options: { name: string }) =>
      stripeEndpoint({ ...options, secret: 'whsec_x' });
    expect(() =>
      tenantEndpoint(untagged as never, { name: 'merchants', resolveTenant: () => null }),
    ).toThrow(/carries its provider kind as `.kind`/);
    expect(() => tenantEndpoint(stripeEndpoint, { name: 'merchants' } as never)).toThrow(
      /needs resolveTenant/,
    );
  });
});
