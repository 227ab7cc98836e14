import { randomUUID } from 'node:crypto';
import { ShopDatabase } from '../../sample-app/src/shop-database';
import { DEVELOPMENT_SECRETS } from '../../sample-app/src/shop-settings';
import { post } from './http';
import {
  Delivery,
  E2E_SECRETS,
  ENDPOINTS,
  hmacDelivery,
  nowSeconds,
  OrderView,
  paymentSucceeded,
  qvardDelivery,
  shopDatabase,
  shopForSuite,
  ShopUnderTest,
  standardDelivery,
  stripeDelivery,
  unique,
  useSecretEnv,
} from './sample-shop';
import { stripeSignature } from './stripe-event';
import { eventually } from './test-app';

/**
 * The sample shop's behaviour as a user sees it over HTTP, on SQLite and PostgreSQL: orders,
 * signed payments for every configured provider applied once (duplicates, distinct events for
 * one payment, concurrent deliveries), out-of-order events never moving an order back, bad
 * signatures refused, and every acknowledged payment applied once across a restart. Run for
 * each shop (Nest, plain Express) with the function that starts it as its `main.ts` does.
 */
export function describeSampleShop(
  label: string,
  startShop: (database: ShopDatabase) => Promise<ShopUnderTest>,
): void {
  describe.each(['sqlite', 'postgres'] as const)(`${label} on %s`, (kind) => {
    useSecretEnv(E2E_SECRETS);
    const shop = shopForSuite(kind, startShop);

    const expectPaidOnce = async (orderId: string) => {
      const { status, body } = await shop().getOrder(orderId);
      expect(status).toBe(200);
      expect(body).toMatchObject({ id: orderId, state: 'paid', fulfilments: 1 });
      // NOTE: read back as the same instant it was written, whatever the process time zone.
      const paidAt = Date.parse(body.paidAt!);
      expect(Math.abs(paidAt - Date.now())).toBeLessThan(60_000);
      expect(paidAt).toBeGreaterThanOrEqual(Date.parse(body.createdAt));
    };
    const waitUntilPaid = (orderId: string) =>
      eventually(async () => (await shop().getOrder(orderId)).body.state === 'paid');

    describe('orders', () => {
      it('creates a pending order (201) and returns it from GET /orders/:id', async () => {
        const created = await shop().createOrder(4200, 'EUR');
        expect(created).toMatchObject({
          amount: 4200,
          currency: 'EUR',
          state: 'pending',
          paidAt: null,
          fulfilments: 0,
        });
        expect(created.id).toMatch(/^[0-9a-f-]{36}$/);
        const fetched = await shop().getOrder(created.id);
        expect(fetched.status).toBe(200);
        expect(fetched.body).toMatchObject({
          id: created.id,
          amount: 4200,
          currency: 'EUR',
          state: 'pending',
          paidAt: null,
          fulfilments: 0,
        });
        expect(Date.parse(fetched.body.createdAt)).toBe(Date.parse(created.createdAt));
        expect(Math.abs(Date.parse(fetched.body.createdAt) - Date.now())).toBeLessThan(60_000);
      });

      it.each([
        ['a negative amount', { amount: -5, currency: 'USD' }],
        ['a zero amount', { amount: 0, currency: 'USD' }],
        ['a fractional amount', { amount: 10.5, currency: 'USD' }],
        ['a currency that is not three letters', { amount: 100, currency: 'US$' }],
        ['a missing currency', { amount: 100 }],
        ['an unknown field', { amount: 100, currency: 'USD', state: 'paid' }],
      ])('refuses %s with 400', async (_label, input) => {
        const response = await post(`${shop().url}/orders`, JSON.stringify(input));
        expect(response.status).toBe(400);
      });

      it('refuses an amount of 2^31 with 400 naming the bound the amount column holds', async () => {
        const response = await post(
          `${shop().url}/orders`,
          JSON.stringify({ amount: 2 ** 31, currency: 'USD' }),
        );
        expect(response.status).toBe(400);
        expect((JSON.parse(response.body) as { message: string[] }).message).toEqual([
          "amount must be at most 2147483647 minor units, the most the orders table's amount column holds",
        ]);
        expect((await shop().createOrder(2 ** 31 - 1)).amount).toBe(2 ** 31 - 1);
      });

      it('takes a lower-case currency, as Stripe writes it, and stores it upper-case', async () => {
        const created = await shop().createOrder(1500, 'usd');
        expect(created.currency).toBe('USD');
        expect((await shop().getOrder(created.id)).body.currency).toBe('USD');
      });

      it('answers 404 for an unknown order and 400 for an id that is not a UUID', async () => {
        expect((await shop().getOrder(randomUUID())).status).toBe(404);
        expect((await shop().getOrder('not-a-uuid')).status).toBe(400);
      });
    });

    describe.each(ENDPOINTS)('a signed payment.succeeded on /webhooks/%s', (endpoint) => {
      it('is acknowledged with an empty 200 and marks the order paid once', async () => {
        const order = await shop().createOrder();
        const delivery = paymentSucceeded(endpoint, E2E_SECRETS, order.id);
        const response = await shop().deliver(delivery);
        expect(response.status).toBe(200);
        expect(response.body).toBe('');
        await waitUntilPaid(order.id);
        await expectPaidOnce(order.id);
        expect((await shop().settled(delivery)).status).toBe('processed');
      });
    });

    it("accepts a signed event larger than Express's 100 KB JSON default", async () => {
      const order = await shop().createOrder();
      const delivery = stripeDelivery(E2E_SECRETS, order.id, { description: 'x'.repeat(200_000) });
      expect(delivery.body.length).toBeGreaterThan(200_000);
      expect((await shop().deliver(delivery)).status).toBe(200);
      await waitUntilPaid(order.id);
      await expectPaidOnce(order.id);
    });

    it('answers a genuinely signed body that is not JSON with the webhook 400, storing nothing', async () => {
      const order = await shop().createOrder();
      const genuine = stripeDelivery(E2E_SECRETS, order.id);
      // NOTE: the signature is over the broken bytes, so only the JSON check can refuse them;
      // the app's own JSON parser never reads the webhook route's body.
      const broken = genuine.body.slice(0, -2);
      const response = await shop().deliver({
        ...genuine,
        body: broken,
        headers: stripeSignature(broken, E2E_SECRETS.STRIPE_WEBHOOK_SECRET),
      });
      expect(response.status).toBe(400);
      expect(response.body).toContain('is not valid JSON');
      expect(await shop().inbox(genuine)).toHaveLength(0);
      expect((await shop().deliver(genuine)).status).toBe(200);
      await waitUntilPaid(order.id);
      await expectPaidOnce(order.id);
    });

    it('fulfils an order once when it is paid by five events, each delivered 10 times at once', async () => {
      const order = await shop().createOrder();
      const deliveries = [
        stripeDelivery(E2E_SECRETS, order.id, { eventId: unique('evt_A') }),
        stripeDelivery(E2E_SECRETS, order.id, { eventId: unique('evt_B') }),
        qvardDelivery(E2E_SECRETS, order.id),
        standardDelivery(E2E_SECRETS, order.id),
        hmacDelivery(E2E_SECRETS, order.id),
      ];
      const copies = deliveries.flatMap((delivery) => Array.from({ length: 10 }, () => delivery));
      const responses = await Promise.all(copies.map((delivery) => shop().deliver(delivery)));
      expect(responses.map((r) => r.status)).toEqual(Array(copies.length).fill(200));

      for (const delivery of deliveries) {
        const row = await shop().settled(delivery);
        expect(row.status).toBe('processed');
        expect(row.deliveryCount).toBe(10);
        expect(await shop().inbox(delivery)).toHaveLength(1);
      }
      await expectPaidOnce(order.id);

      // A late re-delivery of an already processed event changes nothing either.
      expect((await shop().deliver(deliveries[0])).status).toBe(200);
      expect((await shop().inbox(deliveries[0]))[0].deliveryCount).toBe(11);
      await expectPaidOnce(order.id);
    });

    it('fulfils an order once when 50 distinct payment.succeeded events for it arrive at once', async () => {
      const order = await shop().createOrder();
      const deliveries = Array.from({ length: 50 }, () =>
        stripeDelivery(E2E_SECRETS, order.id, { eventId: unique('evt_distinct') }),
      );
      const responses = await Promise.all(deliveries.map((delivery) => shop().deliver(delivery)));
      expect(responses.map((r) => r.status)).toEqual(Array(50).fill(200));
      const outcomes: string[] = [];
      for (const delivery of deliveries) {
        const row = await shop().settled(delivery);
        expect(row.status).toBe('processed');
        outcomes.push(row.outcome ?? '');
      }
      expect(outcomes.filter((outcome) => outcome === 'applied')).toHaveLength(1);
      expect(outcomes.filter((outcome) => outcome === 'not_allowed')).toHaveLength(49);
      await expectPaidOnce(order.id);
    });

    it("fulfils once for Stripe's checkout.session.completed and payment_intent.succeeded of one payment", async () => {
      const order = await shop().createOrder();
      const session = (eventId: string, type: string, paymentStatus: string): Delivery => {
        const body = JSON.stringify({
          id: eventId,
          object: 'event',
          type,
          created: nowSeconds(),
          data: {
            object: {
              id: unique('cs_sample'),
              object: 'checkout.session',
              amount_total: 1999,
              currency: 'usd',
              payment_status: paymentStatus,
              payment_intent: 'pi_for_checkout',
              client_reference_id: order.id,
            },
          },
        });
        const headers = stripeSignature(body, E2E_SECRETS.STRIPE_WEBHOOK_SECRET);
        return { endpoint: 'stripe', eventId, body, headers };
      };
      // A delayed payment method: the session completes unpaid, which is not a payment.
      const unpaid = session(unique('evt_cs_unpaid'), 'checkout.session.completed', 'unpaid');
      expect((await shop().deliver(unpaid)).status).toBe(200);
      expect((await shop().settled(unpaid)).status).toBe('ignored');
      expect((await shop().getOrder(order.id)).body.state).toBe('pending');

      const deliveries = [
        session(unique('evt_cs_paid'), 'checkout.session.async_payment_succeeded', 'paid'),
        stripeDelivery(E2E_SECRETS, order.id),
      ];
      const responses = await Promise.all(deliveries.map((delivery) => shop().deliver(delivery)));
      expect(responses.map((r) => r.status)).toEqual([200, 200]);
      for (const delivery of deliveries) {
        expect(await shop().settled(delivery)).toMatchObject({
          status: 'processed',
          type: 'payment.succeeded',
          merchantRef: order.id,
        });
      }
      await expectPaidOnce(order.id);
    });

    it('keeps a paid order paid when a payment_intent.canceled arrives late', async () => {
      const order = await shop().createOrder();
      const paid = stripeDelivery(E2E_SECRETS, order.id);
      expect((await shop().deliver(paid)).status).toBe(200);
      await waitUntilPaid(order.id);

      const canceled = stripeDelivery(E2E_SECRETS, order.id, { type: 'payment_intent.canceled' });
      expect((await shop().deliver(canceled)).status).toBe(200);
      const row = await shop().settled(canceled);
      expect(row).toMatchObject({ status: 'processed', type: 'payment.canceled' });
      await expectPaidOnce(order.id);
    });

    it('cancels a pending order, and a later payment.succeeded does not make it paid', async () => {
      const order = await shop().createOrder();
      const canceled = stripeDelivery(E2E_SECRETS, order.id, { type: 'payment_intent.canceled' });
      expect((await shop().deliver(canceled)).status).toBe(200);
      await eventually(async () => (await shop().getOrder(order.id)).body.state === 'canceled');

      const late = [
        stripeDelivery(E2E_SECRETS, order.id),
        qvardDelivery(E2E_SECRETS, order.id),
        standardDelivery(E2E_SECRETS, order.id),
        hmacDelivery(E2E_SECRETS, order.id),
      ];
      for (const delivery of late) {
        expect((await shop().deliver(delivery)).status).toBe(200);
      }
      for (const delivery of late) {
        expect((await shop().settled(delivery)).status).toBe('processed');
      }
      const { body } = await shop().getOrder(order.id);
      expect(body).toMatchObject({ state: 'canceled', paidAt: null, fulfilments: 0 });
    });

    it('acknowledges events for an unknown order or without an order id and keeps working', async () => {
      const ghost = randomUUID();
      const unknown = [
        stripeDelivery(E2E_SECRETS, ghost),
        stripeDelivery(E2E_SECRETS, ghost, { type: 'payment_intent.canceled' }),
        qvardDelivery(E2E_SECRETS, ghost),
        standardDelivery(E2E_SECRETS, ghost),
        hmacDelivery(E2E_SECRETS, ghost),
        stripeDelivery(E2E_SECRETS, undefined),
      ];
      for (const delivery of unknown) {
        expect((await shop().deliver(delivery)).status).toBe(200);
      }
      for (const delivery of unknown) {
        const row = await shop().settled(delivery);
        expect(row).toMatchObject({ status: 'processed', attempts: 1, lastError: null });
      }
      expect((await shop().getOrder(ghost)).status).toBe(404);

      // The shop still takes orders and payments.
      const order = await shop().createOrder();
      expect((await shop().deliver(paymentSucceeded('hmac', E2E_SECRETS, order.id))).status).toBe(
        200,
      );
      await waitUntilPaid(order.id);
      await expectPaidOnce(order.id);
    });

    describe.each(ENDPOINTS)('a delivery to /webhooks/%s', (endpoint) => {
      it('is refused with 400 when signed with another secret, tampered or unsigned', async () => {
        const order = await shop().createOrder();
        const wrongSecret = paymentSucceeded(endpoint, DEVELOPMENT_SECRETS, order.id);
        const genuine = paymentSucceeded(endpoint, E2E_SECRETS, order.id);
        const tampered = { ...genuine, body: genuine.body.replace(order.id, randomUUID()) };
        const unsigned = { ...genuine, headers: {} };
        const responses = await Promise.all(
          [wrongSecret, tampered, unsigned].map((delivery) => shop().deliver(delivery)),
        );
        expect(responses.map((r) => r.status)).toEqual([400, 400, 400]);

        for (const delivery of [wrongSecret, genuine]) {
          expect(await shop().inbox(delivery)).toHaveLength(0);
        }
        const { body } = await shop().getOrder(order.id);
        expect(body).toMatchObject({ state: 'pending', paidAt: null, fulfilments: 0 });
      });
    });

    it('refuses a Stripe delivery whose signed timestamp is out of the 5-minute window', async () => {
      const order = await shop().createOrder();
      const delivery = stripeDelivery(E2E_SECRETS, order.id);
      const stale = stripeSignature(delivery.body, E2E_SECRETS.STRIPE_WEBHOOK_SECRET, {
        timestamp: nowSeconds() - 301,
      });
      const response = await shop().deliver({ ...delivery, headers: stale });
      expect(response.status).toBe(400);
      expect(await shop().inbox(delivery)).toHaveLength(0);
      expect((await shop().getOrder(order.id)).body.state).toBe('pending');
    });
  });

  describe.each(['sqlite', 'postgres'] as const)(`${label} restarted on %s`, (kind) => {
    useSecretEnv(E2E_SECRETS);

    it('applies every acknowledged payment exactly once across a shutdown and a restart', async () => {
      const db = await shopDatabase(kind);
      try {
        const first = await startShop(db.database);
        let orders: OrderView[];
        let deliveries: Delivery[];
        try {
          orders = await Promise.all(Array.from({ length: 8 }, () => first.createOrder()));
          deliveries = orders.map((order, i) =>
            paymentSucceeded(ENDPOINTS[i % ENDPOINTS.length], E2E_SECRETS, order.id),
          );
          const responses = await Promise.all(deliveries.map((d) => first.deliver(d)));
          expect(responses.map((r) => r.status)).toEqual(Array(deliveries.length).fill(200));
        } finally {
          // NOTE: closed at once, while the dispatcher may still be working through the events.
          await first.close();
        }

        const second = await startShop(db.database);
        try {
          for (const delivery of deliveries) {
            expect((await second.settled(delivery)).status).toBe('processed');
            // The providers re-deliver what they think was lost; that changes nothing.
            expect((await second.deliver(delivery)).status).toBe(200);
          }
          for (const order of orders) {
            const { body } = await second.getOrder(order.id);
            expect(body).toMatchObject({ state: 'paid', fulfilments: 1 });
          }
        } finally {
          await second.close();
        }
      } finally {
        await db.drop();
      }
    });
  });
}
