import { Controller, Injectable, Post } from '@nestjs/common';
import { request as httpRequest } from 'node:http';
import { Registry } from 'prom-client';
import {
  OnPaymentEvent,
  PaymentWebhook,
  stripeEndpoint,
  tenantEndpoint,
  WebhookAdmin,
  type PaymentEvent,
  type TenantLookup,
  type WebhookContext,
  type WebhooksModuleOptions,
} from 'nestjs-payment-webhooks';
import { cliJson, ensureBuiltCli, runCli } from '../support/cli';
import { FakeProviderApi } from '../../lib/spec-support/fake-provider-api';
import { post } from '../support/http';
import { MatrixApp, startMatrixApp, startRouterApp } from '../support/router-app';
import { signedStripeEvent } from '../support/stripe-event';
import { countEffects, Database, eventually, Platform, startTestApp } from '../support/test-app';

/**
 * Tenant endpoints end to end: deliveries to `…/merchants/{tenant}` verified with the secret
 * `resolveTenant` returns for the tenant, signed by Stripe's own SDK; the tenant stored with the
 * event and in its dedup key, seen by handlers; unknown, impossible and unresolvable tenants
 * refused with nothing stored, and the memory and metrics they take bounded.
 */

/** The merchants' secrets, as the app's database would hold them. */
const SECRETS: Record<string, readonly string[]> = {
  acme: ['whsec_tenant_acme'],
  globex: ['whsec_tenant_globex'],
  // NOTE: rolling its secret: both are valid until the old one is dropped.
  initech: ['whsec_tenant_initech_old', 'whsec_tenant_initech_new'],
};
const MAX_TENANTS = 100;

/** What a handler saw of one event. */
interface Seen {
  eventId: string;
  tenant: string | null;
  ctxTenant: string | null;
  idempotencyKey: string;
}

interface TenantApp {
  url: string;
  /** The path deliveries go to, `/webhooks` or the app's own `@PaymentWebhook` route's base. */
  seen: Seen[];
  asked: string[];
  admin: WebhookAdmin;
  registry: Registry;
  endpoint: ReturnType<typeof merchantsEndpoint>;
  rows(eventId: string): Promise<{ tenant: string; delivery_count: number | string }[]>;
  /** The CLI's options that open this app's inbox. */
  connection: string[];
  close(): Promise<void>;
}

/** How the resolver behaves for a tenant, besides the secrets. */
const BEHAVIOUR: Record<string, (lookup: TenantLookup) => Promise<never>> = {
  broken: () => Promise.reject(new Error('merchants table is unreachable')),
  slow: () => new Promise<never>(() => undefined),
};

function merchantsEndpoint(asked: string[]) {
  return tenantEndpoint(stripeEndpoint, {
    name: 'merchants',
    resolveTimeoutMs: 200,
    tenantCache: { maxTenants: MAX_TENANTS },
    resolveTenant: async (lookup) => {
      asked.push(lookup.tenant);
      const behaviour = BEHAVIOUR[lookup.tenant];
      if (behaviour) {
        return behaviour(lookup);
      }
      const secret = SECRETS[lookup.tenant];
      return secret ? { secret } : null;
    },
  });
}

const SEEN: Seen[] = [];

function see(event: PaymentEvent, ctx: WebhookContext): void {
  SEEN.push({
    eventId: event.eventId,
    tenant: event.tenant,
    ctxTenant: ctx.tenant,
    idempotencyKey: ctx.idempotencyKey,
  });
}

@Injectable()
class TenantHandlers {
  @OnPaymentEvent('payment.succeeded', { endpoint: 'merchants' })
  async paid(event: PaymentEvent, ctx: WebhookContext): Promise<void> {
    see(event, ctx);
  }
}

@Controller('shop')
class ShopHooks {
  @Post('merchants/:tenant/stripe')
  @PaymentWebhook('merchants')
  hook(): void {}
}

async function startTenantApp(
  platform: Platform | 'router',
  database: Database,
): Promise<TenantApp> {
  SEEN.length = 0;
  const asked: string[] = [];
  const endpoint = merchantsEndpoint(asked);
  const registry = new Registry();
  const webhooks: WebhooksModuleOptions = {
    endpoints: [endpoint, stripeEndpoint({ name: 'stripe', secret: 'whsec_tenant_plain' })],
    dispatch: { pollIntervalMs: 50 },
    observability: { metrics: { registry } },
  };
  const started =
    platform === 'router'
      ? await startRouterApp({
          database,
          webhooks,
          handlers: [
            {
              on: 'payment.succeeded',
              name: 'TenantHandlers.paid',
              endpoint: 'merchants',
              handle: see,
            },
          ],
        }).then((app) => ({ app, admin: app.router.admin }))
      : await startTestApp({
          platform,
          database,
          webhooks,
          handlers: [TenantHandlers],
          controllers: [ShopHooks],
        }).then((app) => ({ app, admin: app.app.get(WebhookAdmin) }));
  const { app, admin } = started;
  const placeholder = database === 'postgres' ? '$1' : '?';
  return {
    url: app.url,
    seen: SEEN,
    asked,
    admin,
    connection: inboxOptions(app),
    registry,
    endpoint,
    rows: (eventId) =>
      app.dataSource.query(
        `SELECT tenant, delivery_count FROM webhook_events WHERE event_id = ${placeholder} ORDER BY tenant`,
        [eventId],
      ),
    close: () => app.close(),
  };
}

function inboxOptions(app: { sqliteFile?: string; databaseUrl?: string }): string[] {
  return app.sqliteFile ? ['--sqlite', app.sqliteFile] : ['--database-url', app.databaseUrl!];
}

/** POSTs to `path` exactly as written: no URL normalization of `..` or `%2e`. */
function rawPost(url: string, path: string, body: string): Promise<number> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { hostname, port, path, method: 'POST', headers: { 'content-type': 'application/json' } },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

beforeAll(() => ensureBuiltCli(), 300_000);

// NOTE: each entrance reads the tenant from the path its own way, and each database keys the
// events by tenant: every entrance runs once, each database at least once.
describe.each<[Platform | 'router', Database]>([
  ['express', 'postgres'],
  ['fastify', 'sqlite'],
  ['router', 'postgres'],
])('tenant endpoints on %s over %s', (platform, database) => {
  let app: TenantApp;

  beforeAll(async () => {
    app = await startTenantApp(platform, database);
  });
  afterAll(() => app?.close());

  const deliver = (tenant: string, event: { body: string; headers: Record<string, string> }) =>
    post(`${app.url}/webhooks/merchants/${tenant}`, event.body, event.headers);

  it("stores one event id once per tenant, each verified with its own secret, and runs each tenant's handlers once", async () => {
    const id = `evt_tenant_${platform}_${database}_shared`;
    const forAcme = signedStripeEvent(SECRETS.acme[0], { id });
    const forGlobex = signedStripeEvent(SECRETS.globex[0], { id });
    expect((await deliver('acme', forAcme)).status).toBe(200);
    expect((await deliver('globex', forGlobex)).status).toBe(200);
    expect((await deliver('acme', forAcme)).status).toBe(200);

    expect(await app.rows(id)).toEqual([
      { tenant: 'acme', delivery_count: expect.anything() },
      { tenant: 'globex', delivery_count: expect.anything() },
    ]);
    expect((await app.rows(id)).map((row) => Number(row.delivery_count))).toEqual([2, 1]);
    await eventually(() => app.seen.filter((seen) => seen.eventId === id).length === 2);
    const seen = app.seen.filter((one) => one.eventId === id);
    expect(seen.map((one) => [one.tenant, one.ctxTenant]).sort()).toEqual([
      ['acme', 'acme'],
      ['globex', 'globex'],
    ]);
    expect(seen[0].idempotencyKey).not.toBe(seen[1].idempotencyKey);
    expect(await app.admin.count({ eventId: id, tenant: 'globex' })).toBe(1);
    expect((await app.admin.list({ tenant: 'acme', eventId: id })).map((e) => e.tenant)).toEqual([
      'acme',
    ]);
  });

  it("lists a tenant's events with the CLI, naming the tenant beside the endpoint", async () => {
    const id = `evt_tenant_${platform}_${database}_cli`;
    for (const tenant of ['acme', 'globex']) {
      expect((await deliver(tenant, signedStripeEvent(SECRETS[tenant][0], { id }))).status).toBe(
        200,
      );
    }
    const listed = cliJson<{ tenant: string; eventId: string }[]>(
      await runCli([
        'events',
        'list',
        ...app.connection,
        '--event',
        id,
        '--tenant',
        'globex',
        '--json',
      ]),
    );
    expect(listed.map((row) => [row.tenant, row.eventId])).toEqual([['globex', id]]);
    const table = await runCli(['events', 'list', ...app.connection, '--event', id]);
    expect(table.stdout).toContain('merchants/acme');
    expect(table.stdout).toContain('merchants/globex');
  });

  it("refuses one tenant's delivery signed with another's secret: 400, nothing stored", async () => {
    const event = signedStripeEvent(SECRETS.globex[0]);
    expect((await deliver('acme', event)).status).toBe(400);
    expect(await app.rows(event.id)).toEqual([]);
  });

  it('takes both secrets of a tenant rolling its secret', async () => {
    for (const secret of SECRETS.initech) {
      const event = signedStripeEvent(secret);
      expect((await deliver('initech', event)).status).toBe(200);
      expect((await app.rows(event.id)).map((row) => row.tenant)).toEqual(['initech']);
    }
  });

  it('answers 404 for a tenant the resolver does not know, and stores nothing', async () => {
    const event = signedStripeEvent(SECRETS.acme[0]);
    const answer = await deliver('hooli', event);
    expect(answer.status).toBe(404);
    expect(answer.body).not.toContain(SECRETS.acme[0]);
    expect(await app.rows(event.id)).toEqual([]);
  });

  it.each(['broken', 'slow'])(
    'answers 503 when the resolver is %s, so the provider retries, and stores nothing',
    async (tenant) => {
      const event = signedStripeEvent(SECRETS.acme[0]);
      expect((await deliver(tenant, event)).status).toBe(503);
      expect(await app.rows(event.id)).toEqual([]);
    },
  );

  // NOTE: Fastify answers a route parameter over 100 characters itself, with 414.
  it.each([
    ['a parent path', '/webhooks/merchants/..%2Fadmin', 404],
    ['dots', '/webhooks/merchants/%2e%2e', 404],
    ['an encoded slash', '/webhooks/merchants/acme%2Fglobex', 404],
    ['a name of 300 characters', `/webhooks/merchants/${'a'.repeat(300)}`, 414],
    ['a NUL', '/webhooks/merchants/acme%00', 404],
    ['no tenant', '/webhooks/merchants', 404],
    ['a tenant at an endpoint without tenants', '/webhooks/stripe/acme', 404],
    ['a segment too many', '/webhooks/merchants/acme/more', 404],
  ])('refuses %s, never asking the resolver, and stores nothing', async (_, path, onFastify) => {
    const event = signedStripeEvent(SECRETS.acme[0]);
    const asked = app.asked.length;
    expect(await rawPost(app.url, path, event.body)).toBe(platform === 'fastify' ? onFastify : 404);
    expect(app.asked.length).toBe(asked);
    expect(await app.rows(event.id)).toEqual([]);
  });

  // NOTE: the tenants kept and the metrics' labels are the engine's, behind every entrance.
  if (platform === 'express') {
    it('keeps memory and metrics bounded under a thousand distinct unknown tenants', async () => {
      const event = signedStripeEvent(SECRETS.acme[0]);
      const statuses = new Set<number>();
      for (let start = 0; start < 1_000; start += 50) {
        const batch = Array.from({ length: 50 }, (_, i) =>
          deliver(`ghost-${platform}-${start + i}`, event).then((answer) => answer.status),
        );
        (await Promise.all(batch)).forEach((status) => statuses.add(status));
      }
      expect([...statuses]).toEqual([404]);
      expect(app.endpoint.tenants.size).toBeLessThanOrEqual(
        MAX_TENANTS + Object.keys(SECRETS).length,
      );
      const metrics = await app.registry.metrics();
      expect(metrics).not.toContain('ghost-');
      const series = metrics
        .split('\n')
        .filter((line) => line.startsWith('payment_webhooks_deliveries_total{'));
      expect(series.length).toBeLessThan(20);
      expect(series.some((line) => line.includes('decision="unknown_tenant"'))).toBe(true);
      expect(await app.rows(event.id)).toEqual([]);
    });
  }

  if (platform !== 'router') {
    it("verifies and stores at the app's own @PaymentWebhook route with a :tenant parameter", async () => {
      const event = signedStripeEvent(SECRETS.globex[0]);
      const answer = await post(
        `${app.url}/shop/merchants/globex/stripe`,
        event.body,
        event.headers,
      );
      expect(answer.status).toBe(200);
      expect((await app.rows(event.id)).map((row) => row.tenant)).toEqual(['globex']);
      const wrong = signedStripeEvent(SECRETS.globex[0]);
      expect(
        (await post(`${app.url}/shop/merchants/acme/stripe`, wrong.body, wrong.headers)).status,
      ).toBe(400);
      expect(
        (await post(`${app.url}/shop/merchants/hooli/stripe`, wrong.body, wrong.headers)).status,
      ).toBe(404);
    });
  }
});

describe.each<[Platform | 'router', Database]>([
  ['express', 'postgres'],
  ['router', 'sqlite'],
])("a tenant's own API credentials at dispatch, on %s over %s", (platform, database) => {
  let fake: FakeProviderApi;
  let app: MatrixApp;
  const merchants = new Map<string, { secret: string; apiKey: string }>();

  beforeAll(async () => {
    fake = await FakeProviderApi.start();
    const { apiKey, apiUrl } = fake.clientOptions('stripe');
    merchants.set('acme', { secret: 'whsec_dispatch_acme', apiKey });
    merchants.set('globex', { secret: 'whsec_dispatch_globex', apiKey: 'sk_test_not_globex_key' });
    merchants.set('leaver', { secret: 'whsec_dispatch_leaver', apiKey });
    const endpoint = tenantEndpoint(stripeEndpoint, {
      name: 'merchants',
      verifyWithProvider: true,
      // NOTE: asked at every delivery and every attempt, so a merchant leaving is seen at once.
      tenantCache: { ttlMs: 0 },
      resolveTenant: ({ tenant, request }) => {
        // NOTE: "leaver" leaves between its delivery (a request) and the attempt (none).
        if (tenant === 'leaver' && request === undefined) {
          return null;
        }
        const merchant = merchants.get(tenant);
        return merchant && { secret: merchant.secret, api: { apiKey: merchant.apiKey, apiUrl } };
      },
    });
    app = await startMatrixApp({
      platform,
      database,
      webhooks: {
        endpoints: [endpoint],
        dispatch: {
          pollIntervalMs: 50,
          retry: { maxAttempts: 2, baseDelayMs: 50, maxDelayMs: 50 },
        },
      },
    });
  });
  afterAll(async () => {
    await app?.close();
    await fake?.close();
  });

  const state = async (eventId: string) => {
    const [row] = await app.dataSource.query(
      `SELECT status, last_error FROM webhook_events WHERE event_id = ${database === 'postgres' ? '$1' : '?'}`,
      [eventId],
    );
    return row as { status: string; last_error: string | null } | undefined;
  };

  it("asks the provider with the tenant's own key, and each tenant's answer decides its event", async () => {
    const ours = `pi_tenant_${platform}_acme`;
    const theirs = `pi_tenant_${platform}_globex`;
    fake.setPayment('stripe', ours, { status: 'succeeded' }).setPayment('stripe', theirs, {
      status: 'succeeded',
    });
    const forAcme = signedStripeEvent('whsec_dispatch_acme', { paymentId: ours });
    const forGlobex = signedStripeEvent('whsec_dispatch_globex', { paymentId: theirs });
    expect(
      (await post(`${app.url}/webhooks/merchants/acme`, forAcme.body, forAcme.headers)).status,
    ).toBe(200);
    expect(
      (await post(`${app.url}/webhooks/merchants/globex`, forGlobex.body, forGlobex.headers))
        .status,
    ).toBe(200);
    await eventually(async () => (await state(forAcme.id))?.status === 'processed');
    await eventually(async () =>
      ['dead', 'retrying'].includes((await state(forGlobex.id))?.status ?? ''),
    );
    expect(await countEffects(app, forAcme.id)).toBe(1);
    expect(await countEffects(app, forGlobex.id)).toBe(0);
    const keys = fake.requestsTo('stripe').map((request) => request.headers.authorization);
    expect(keys).toContain(`Bearer ${fake.clientOptions('stripe').apiKey}`);
    expect(keys).toContain('Bearer sk_test_not_globex_key');
  });

  it('retries, then gives up on, the event of a tenant that no longer resolves, saying so', async () => {
    const event = signedStripeEvent('whsec_dispatch_leaver');
    fake.setPayment('stripe', `pi_${event.id}`, { status: 'succeeded' });
    const answer = await post(`${app.url}/webhooks/merchants/leaver`, event.body, event.headers);
    expect(answer.status).toBe(200);
    await eventually(async () => (await state(event.id))?.status === 'dead', 15_000);
    expect((await state(event.id))?.last_error).toMatch(
      /Tenant "leaver" of endpoint "merchants" no longer resolves/,
    );
    expect(await countEffects(app, event.id)).toBe(0);
  });
});

describe('the delivery journal at a tenant endpoint', () => {
  it('names a possible tenant on each line, and never a path that is none', async () => {
    const lines: string[] = [];
    const keep = (message: unknown) => lines.push(String(message));
    const app = await startRouterApp({
      database: 'sqlite',
      webhooks: {
        endpoints: [merchantsEndpoint([])],
        logger: { log: keep, warn: keep, error: keep },
      },
    });
    try {
      const event = signedStripeEvent(SECRETS.acme[0]);
      await post(`${app.url}/webhooks/merchants/acme`, event.body, event.headers);
      await post(`${app.url}/webhooks/merchants/hooli`, event.body, event.headers);
      await post(`${app.url}/webhooks/merchants/broken`, event.body, event.headers);
      await rawPost(app.url, `/webhooks/merchants/${'x'.repeat(200)}`, event.body);
      const journal = lines.filter((line) => line.includes('decision='));
      expect(journal).toEqual([
        expect.stringMatching(
          / endpoint=merchants tenant=acme provider=stripe decision=accepted status=200 /,
        ),
        expect.stringMatching(
          / endpoint=merchants tenant=hooli provider=stripe decision=unknown_tenant status=404 .*reason="no such tenant"/,
        ),
        expect.stringMatching(
          / endpoint=merchants tenant=broken provider=stripe decision=tenant_unavailable status=503 .*merchants table is unreachable/,
        ),
        expect.stringMatching(
          / endpoint=merchants provider=stripe decision=unknown_tenant status=404 /,
        ),
      ]);
      expect(journal[3]).not.toContain('xxxx');
    } finally {
      await app.close();
    }
  });
});
