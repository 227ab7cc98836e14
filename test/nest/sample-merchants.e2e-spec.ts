import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { DEMO_MERCHANT } from '../../sample-app/src/merchants/demo-merchant';
import { Merchant } from '../../sample-app/src/merchants/merchant.entity';
import { DEVELOPMENT_SECRETS } from '../../sample-app/src/shop-settings';
import { post } from '../support/http';
import { WebhookEventEntity } from '../support/internals';
import {
  RunningShop,
  ShopStarter,
  startExpressShop,
  startNestShop,
} from '../support/sample-shop-apps';
import { E2E_SECRETS, OrderView, shopForSuite, unique, useSecretEnv } from '../support/sample-shop';
import { SignedStripeEvent, signedStripeEvent, stripeEventId } from '../support/stripe-event';
import { eventually } from '../support/test-app';

/**
 * End-to-end tests of the sample shops' merchants endpoint, `POST /webhooks/merchants/{slug}`:
 * each merchant's Stripe deliveries verified with its own secrets from the merchants table,
 * signed by Stripe's own SDK, sent over real HTTP, and observed through the shop's orders and
 * the inbox table. The Nest shop adds merchants through `POST /merchants`; the Express shop,
 * which has no such route, takes them as rows of the same table. Nothing is mocked.
 */

/** Adds a merchant with `secrets` to a running shop. */
type AddMerchant = (shop: RunningShop, slug: string, secrets: string[]) => Promise<void>;

const throughRoute: AddMerchant = async (shop, slug, secrets) => {
  const response = await post(
    `${shop.url}/merchants`,
    JSON.stringify({ slug, name: `Merchant ${slug}`, stripeWebhookSecrets: secrets }),
  );
  expect(response.status).toBe(201);
};

const intoTable: AddMerchant = (shop, slug, secrets) =>
  shop.transactions.run(async (manager) => {
    await manager.insert(Merchant, {
      id: randomUUID(),
      slug,
      name: `Merchant ${slug}`,
      stripeWebhookSecrets: secrets,
      createdAt: new Date(),
    });
  });

/** A merchant made for one test: its slug and the secret of its Stripe endpoint. */
interface TestMerchant {
  slug: string;
  secret: string;
}

const shops: [string, ShopStarter, AddMerchant][] = [
  ['sample shop', startNestShop, throughRoute],
  ['Express sample shop', startExpressShop, intoTable],
];

describe.each(shops)('%s merchants endpoint', (_label, startShop, addMerchant) => {
  describe.each(['sqlite', 'postgres'] as const)('on %s', (kind) => {
    useSecretEnv(E2E_SECRETS);
    const shop = shopForSuite(kind, startShop);

    const merchant = async (): Promise<TestMerchant> => {
      const slug = unique('shop').replace(/_/g, '-');
      const secret = `whsec_${slug.replace(/-/g, '_')}`;
      await addMerchant(shop(), slug, [secret]);
      return { slug, secret };
    };
    const deliver = (slug: string, event: SignedStripeEvent) =>
      post(`${shop().url}/webhooks/merchants/${slug}`, event.body, event.headers);
    const createOrder = async (): Promise<OrderView> => {
      const response = await post(
        `${shop().url}/orders`,
        JSON.stringify({ amount: 1999, currency: 'USD' }),
      );
      expect(response.status).toBe(201);
      return JSON.parse(response.body) as OrderView;
    };
    const order = async (id: string): Promise<OrderView> =>
      (await (await fetch(`${shop().url}/orders/${id}`)).json()) as OrderView;
    const paid = async (id: string): Promise<OrderView> => {
      await eventually(async () => (await order(id)).state === 'paid');
      return order(id);
    };
    /** The merchants endpoint's inbox rows of a Stripe event id, whichever merchant's. */
    const inbox = (eventId: string) =>
      shop().transactions.run((manager) =>
        manager.findBy(WebhookEventEntity, { endpoint: 'merchants', eventId }),
      );

    it('pays the order once, its event stored with the merchant as tenant; a re-delivery is a duplicate', async () => {
      const acme = await merchant();
      const { id } = await createOrder();
      const event = signedStripeEvent(acme.secret, { orderId: id });

      expect((await deliver(acme.slug, event)).status).toBe(200);
      expect(await paid(id)).toMatchObject({ fulfilments: 1, merchant: acme.slug });
      const again = signedStripeEvent(acme.secret, { id: event.id, orderId: id });
      expect((await deliver(acme.slug, again)).status).toBe(200);

      const rows = await inbox(event.id);
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({ tenant: acme.slug, status: 'processed', merchantRef: id });
      expect(rows[0].deliveryCount).toBe(2);
      expect(await order(id)).toMatchObject({ state: 'paid', fulfilments: 1 });
    });

    it("stores one event id delivered for two merchants as each merchant's own event", async () => {
      const [first, second] = [await merchant(), await merchant()];
      const [firstOrder, secondOrder] = [await createOrder(), await createOrder()];
      const id = stripeEventId();

      const toFirst = signedStripeEvent(first.secret, { id, orderId: firstOrder.id });
      const toSecond = signedStripeEvent(second.secret, { id, orderId: secondOrder.id });
      expect((await deliver(first.slug, toFirst)).status).toBe(200);
      expect((await deliver(second.slug, toSecond)).status).toBe(200);

      expect(await paid(firstOrder.id)).toMatchObject({ fulfilments: 1, merchant: first.slug });
      expect(await paid(secondOrder.id)).toMatchObject({ fulfilments: 1, merchant: second.slug });
      const rows = await inbox(id);
      expect(rows).toHaveLength(2);
      expect(rows.map((row) => [row.tenant, row.merchantRef])).toEqual(
        expect.arrayContaining([
          [first.slug, firstOrder.id],
          [second.slug, secondOrder.id],
        ]),
      );
    });

    it('answers 404 for a slug no merchant has, and stores nothing', async () => {
      const { id } = await createOrder();
      const event = signedStripeEvent(E2E_SECRETS.DEMO_MERCHANT_WEBHOOK_SECRET, { orderId: id });

      expect((await deliver(unique('nobody'), event)).status).toBe(404);
      expect(await inbox(event.id)).toEqual([]);
      expect(await order(id)).toMatchObject({ state: 'pending', fulfilments: 0 });
    });

    it("answers 400 for a delivery signed with another merchant's secret, and stores nothing", async () => {
      const [acme, other] = [await merchant(), await merchant()];
      const { id } = await createOrder();
      const event = signedStripeEvent(other.secret, { orderId: id });

      expect((await deliver(acme.slug, event)).status).toBe(400);
      expect(await inbox(event.id)).toEqual([]);
      expect(await order(id)).toMatchObject({ state: 'pending', fulfilments: 0 });
    });

    it("takes the demo merchant's deliveries signed with DEMO_MERCHANT_WEBHOOK_SECRET", async () => {
      const { id } = await createOrder();
      const event = signedStripeEvent(E2E_SECRETS.DEMO_MERCHANT_WEBHOOK_SECRET, { orderId: id });

      expect((await deliver(DEMO_MERCHANT.slug, event)).status).toBe(200);
      expect(await paid(id)).toMatchObject({ fulfilments: 1, merchant: DEMO_MERCHANT.slug });
      expect((await inbox(event.id)).map((row) => row.tenant)).toEqual([DEMO_MERCHANT.slug]);
    });
  });
});

describe.each(shops)('%s without secrets in the environment', (_label, startShop) => {
  useSecretEnv(undefined);
  const shop = shopForSuite('sqlite', async (database) => {
    // NOTE: the Express shop warns on the console about each development secret it uses.
    const warn = jest.spyOn(console, 'warn').mockImplementation(() => undefined);
    try {
      return await startShop(database);
    } finally {
      warn.mockRestore();
    }
  });

  it("takes the demo merchant's deliveries signed with the documented development secret", async () => {
    const created = await post(
      `${shop().url}/orders`,
      JSON.stringify({ amount: 1999, currency: 'USD' }),
    );
    const { id } = JSON.parse(created.body) as OrderView;
    const url = `${shop().url}/webhooks/merchants/${DEMO_MERCHANT.slug}`;

    const refused = signedStripeEvent(E2E_SECRETS.DEMO_MERCHANT_WEBHOOK_SECRET, { orderId: id });
    expect((await post(url, refused.body, refused.headers)).status).toBe(400);
    const event = signedStripeEvent(DEVELOPMENT_SECRETS.DEMO_MERCHANT_WEBHOOK_SECRET, {
      orderId: id,
    });
    expect((await post(url, event.body, event.headers)).status).toBe(200);
    await eventually(
      async () =>
        ((await (await fetch(`${shop().url}/orders/${id}`)).json()) as OrderView).merchant ===
        DEMO_MERCHANT.slug,
    );
  });
});

describe.each(['sqlite', 'postgres'] as const)('sample shop POST /merchants on %s', (kind) => {
  useSecretEnv(E2E_SECRETS);
  const shop = shopForSuite(kind, startNestShop);

  const add = (body: Record<string, unknown>) =>
    post(`${shop().url}/merchants`, JSON.stringify(body));

  it('answers 201 with the merchant and its webhook path, never its secrets', async () => {
    const response = await add({
      slug: 'acme',
      name: 'Acme',
      stripeWebhookSecrets: ['whsec_acme_new', 'whsec_acme_old'],
    });
    expect(response.status).toBe(201);
    const body = JSON.parse(response.body) as Record<string, unknown>;
    expect(body).toMatchObject({
      slug: 'acme',
      name: 'Acme',
      webhookPath: '/webhooks/merchants/acme',
    });
    expect(Object.keys(body).sort()).toEqual(['createdAt', 'id', 'name', 'slug', 'webhookPath']);
    expect(response.body).not.toContain('whsec_');
  });

  it("verifies the merchant's deliveries with each of its secrets while it rolls one", async () => {
    await add({
      slug: 'rolling',
      name: 'Rolling',
      stripeWebhookSecrets: ['whsec_rolling_new', 'whsec_rolling_old'],
    });
    for (const secret of ['whsec_rolling_new', 'whsec_rolling_old']) {
      const event = signedStripeEvent(secret);
      const response = await post(
        `${shop().url}/webhooks/merchants/rolling`,
        event.body,
        event.headers,
      );
      expect(response.status).toBe(200);
    }
  });

  it('answers 409 for a slug another merchant has', async () => {
    const merchant = { slug: 'taken', name: 'Taken', stripeWebhookSecrets: ['whsec_taken'] };
    expect((await add(merchant)).status).toBe(201);
    const response = await add({ ...merchant, name: 'Someone else' });
    expect(response.status).toBe(409);
    expect(JSON.parse(response.body)).toMatchObject({
      message: 'A merchant with the slug "taken" exists already',
    });
  });

  it.each([
    ['a slug with a slash', { slug: 'a/b', name: 'A', stripeWebhookSecrets: ['whsec_a'] }],
    [
      'a slug over 64 characters',
      { slug: 'a'.repeat(65), name: 'A', stripeWebhookSecrets: ['whsec_a'] },
    ],
    ['no secrets', { slug: 'a', name: 'A', stripeWebhookSecrets: [] }],
    ['an API key for a secret', { slug: 'a', name: 'A', stripeWebhookSecrets: ['sk_live_123'] }],
    ['a secret that is not a list', { slug: 'a', name: 'A', stripeWebhookSecrets: 'whsec_a' }],
    ['an empty name', { slug: 'a', name: '', stripeWebhookSecrets: ['whsec_a'] }],
    ['an unknown field', { slug: 'a', name: 'A', stripeWebhookSecrets: ['whsec_a'], admin: true }],
  ])('refuses %s with 400', async (_label, body) => {
    expect((await add(body)).status).toBe(400);
  });
});
