import { randomInt } from 'node:crypto';
import { Registry } from 'prom-client';
import { mercadoPagoEndpoint, mollieEndpoint } from 'nestjs-payment-webhooks';
import {
  mercadoPagoFixtures,
  mollieFixtures,
  signMercadoPagoDelivery,
} from 'nestjs-payment-webhooks/testing';
import { FakePaymentLookups } from '../support/fake-payment-lookups';
import { HttpResult, post } from '../support/http';
import { WebhookEventEntity } from '../support/internals';
import { MatrixApp, MatrixPlatform, startMatrixApp } from '../support/router-app';
import { countEffects, Database, eventually } from '../support/test-app';

/**
 * Notifications nobody signed (Mollie's classic `id=tr_…`) or signed ones replayed (Mercado
 * Pago) each make the package call the merchant's provider API. Deliveries about one payment
 * share one call, an answer is remembered briefly, a replayed transmission reuses its own
 * answer, and the calls of an endpoint stay within `apiCallBudget` (300 a minute, 60 at once):
 * past it a delivery is answered 503 with Retry-After and nothing is lost, as the provider
 * calls again. A delivery may store a payment only from its own call, so a change that lands
 * right after a read is stored when the provider calls again, never taken for a duplicate.
 */

const SECRET = 'e2e-mercado-pago-budget-7c1d9e3a5b2f4068a1c3e5d7f9b0a2c4';
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
const BURST = 60;
const PER_SECOND = 5;

const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

function paymentId(): string {
  let id = 'tr_';
  for (let i = 0; i < 10; i += 1) id += ALPHANUMERIC[randomInt(ALPHANUMERIC.length)];
  return id;
}

/** Sends `total` deliveries in bursts of `size` at once, as an attacker would. */
async function attack(
  total: number,
  size: number,
  send: (i: number) => Promise<HttpResult>,
): Promise<{ answers: HttpResult[]; ms: number }> {
  const answers: HttpResult[] = [];
  const startedAt = Date.now();
  for (let start = 0; start < total; start += size) {
    const burst = Array.from({ length: Math.min(size, total - start) }, (_, j) => send(start + j));
    answers.push(...(await Promise.all(burst)));
  }
  return { answers, ms: Date.now() - startedAt };
}

/** The most calls the default budget allows over `ms`, the unit at the edge included. */
function budgetOver(ms: number): number {
  return BURST + Math.ceil((ms / 1000) * PER_SECOND) + 1;
}

function withStatus(answers: readonly HttpResult[], status: number): HttpResult[] {
  return answers.filter((answer) => answer.status === status);
}

/**
 * Sends a delivery again every 200 ms while it is answered 503, as the provider would (sooner
 * than it would, which changes nothing but the test's time), for 20 s at most.
 */
async function untilAnswered(send: () => Promise<HttpResult>): Promise<HttpResult[]> {
  const deadline = Date.now() + 20_000;
  const answers = [await send()];
  while (answers.at(-1)!.status === 503 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 200));
    answers.push(await send());
  }
  return answers;
}

describe.each<[MatrixPlatform, Database]>([
  ['express', 'sqlite'],
  ['fastify', 'postgres'],
  ['router', 'postgres'],
])('provider API calls driven by deliveries (%s, %s)', (platform, database) => {
  // NOTE: what a payment's stored events are after a read met a change is the same through
  // every entrance; it runs on both databases, not on each entrance of one.
  const storesChanges = platform !== 'fastify';
  const registry = new Registry();
  let api: FakePaymentLookups;
  let app: MatrixApp;

  const classic = (endpoint: string, id: string) =>
    post(`${app.url}/webhooks/${endpoint}`, mollieFixtures.classicBody(id), FORM);
  const rows = (endpoint: string) =>
    app.dataSource.getRepository(WebhookEventEntity).findBy({ endpoint });
  const decisions = async (endpoint: string): Promise<Record<string, number>> => {
    const counts: Record<string, number> = {};
    for (const line of (await registry.metrics()).split('\n')) {
      const match = new RegExp(
        `^payment_webhooks_deliveries_total\\{endpoint="${endpoint}",provider="[^"]+",decision="(\\w+)"\\} (\\d+)$`,
      ).exec(line);
      if (match) counts[match[1]] = Number(match[2]);
    }
    return counts;
  };

  beforeAll(async () => {
    api = await FakePaymentLookups.start();
    const mollie = (name: string) => mollieEndpoint({ name, api: api.mollieApi() });
    app = await startMatrixApp({
      platform,
      database,
      webhooks: {
        endpoints: [
          mollie('mollie-known'),
          mollie('mollie-repeat'),
          mollie('mollie-unknown'),
          mollie('mollie'),
          mercadoPagoEndpoint({ name: 'mercado-pago', secret: SECRET, api: api.mercadoPagoApi() }),
        ],
        dispatch: { pollIntervalMs: 50 },
        observability: { metrics: { registry } },
      },
    });
  });

  afterAll(async () => {
    await app?.close();
    await api?.close();
  });

  it('holds 300 classic webhooks for payments the API knows to the budget; a refused one is stored when Mollie calls again', async () => {
    const ids = Array.from({ length: 300 }, () => paymentId());
    ids.forEach((id) => api.setPayment('mollie', id, mollieFixtures.payment({ paymentId: id })));
    const before = api.count('mollie');
    const { answers, ms } = await attack(300, 30, (i) => classic('mollie-known', ids[i]));
    const attackedAt = Date.now();

    const calls = api.count('mollie') - before;
    expect(calls).toBeGreaterThanOrEqual(BURST);
    expect(calls).toBeLessThanOrEqual(budgetOver(ms));
    expect(withStatus(answers, 200)).toHaveLength(calls);
    const refused = withStatus(answers, 503);
    expect(refused).toHaveLength(300 - calls);
    for (const answer of refused) {
      expect(Number(answer.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(JSON.parse(answer.body).message).toMatch(
        /^Endpoint "mollie-known" has spent its budget of Mollie API calls \(apiCallBudget: 300 per minute, burst 60\), .*raise apiCallBudget\.perMinute/,
      );
    }
    expect(await decisions('mollie-known')).toEqual({
      accepted: calls,
      api_budget_spent: 300 - calls,
    });

    // Each stored payment is handled once with the answer read at the door, not asked again.
    const stored = await rows('mollie-known');
    expect(stored).toHaveLength(calls);
    await eventually(
      async () => (await rows('mollie-known')).every((row) => row.status === 'processed'),
      30_000,
    );
    expect((await rows('mollie-known')).map((row) => row.providerStatus)).toEqual(
      stored.map(() => 'paid'),
    );
    expect(await countEffects(app, stored[0].eventId)).toBe(1);
    expect(api.count('mollie')).toBe(before + calls);

    // Mollie calls again about a refused payment once the budget has a call for it: 5 a second
    // come back after the attack, and the wait for the stored ones took part of that second.
    const storedIds = new Set(stored.map((row) => row.paymentRef));
    const later = ids.filter((id) => !storedIds.has(id)).slice(0, 3);
    await new Promise((resolve) =>
      setTimeout(resolve, Math.max(0, attackedAt + 1_100 - Date.now())),
    );
    for (const id of later) {
      const [answer] = await untilAnswered(() => classic('mollie-known', id));
      expect(answer.status).toBe(200);
    }
    await eventually(async () => (await rows('mollie-known')).length === calls + 3);
    expect(api.count('mollie')).toBe(before + calls + 3);
  });

  it('makes one call for 300 classic webhooks about one payment; the rest are asked to come again', async () => {
    const id = paymentId();
    api.setPayment('mollie', id, mollieFixtures.payment({ paymentId: id }));
    const { answers, ms } = await attack(300, 30, () => classic('mollie-repeat', id));

    // NOTE: a payment found is remembered for 2 s: one call per 2 s however long the attack.
    const calls = api.count('mollie', id);
    expect(calls).toBeLessThanOrEqual(1 + Math.floor(ms / 2_000));
    expect(withStatus(answers, 200)).toHaveLength(calls);
    for (const answer of withStatus(answers, 503)) {
      expect(JSON.parse(answer.body).message).toMatch(
        new RegExp(
          `^The Mollie API was asked about payment ${id} \\d+ ms ago for another delivery`,
        ),
      );
    }
    expect(await decisions('mollie-repeat')).toMatchObject({
      accepted: 1,
      unconfirmed: 300 - calls,
    });
    const [stored] = await rows('mollie-repeat');
    await eventually(async () => (await countEffects(app, stored.eventId)) === 1);
    expect(await rows('mollie-repeat')).toHaveLength(1);
  });

  it('answers 300 classic webhooks about payments the API does not know within the budget, storing none', async () => {
    const before = api.count('mollie');
    const { answers, ms } = await attack(300, 30, () => classic('mollie-unknown', paymentId()));

    const calls = api.count('mollie') - before;
    expect(calls).toBeGreaterThanOrEqual(BURST);
    expect(calls).toBeLessThanOrEqual(budgetOver(ms));
    const asked = withStatus(answers, 200);
    expect(asked).toHaveLength(calls);
    expect(withStatus(answers, 503)).toHaveLength(300 - asked.length);
    expect(await decisions('mollie-unknown')).toEqual({
      skipped: asked.length,
      api_budget_spent: 300 - asked.length,
    });
    expect(JSON.parse(withStatus(answers, 503)[0].body).message).toMatch(
      /^Endpoint "mollie-unknown" has spent its budget of Mollie API calls/,
    );
    expect(await rows('mollie-unknown')).toEqual([]);
  });

  it('answers 500 replays of one signed Mercado Pago delivery with the payment its first delivery read', async () => {
    const id = String(1_300_000_000 + randomInt(1_000_000));
    api.setPayment('mercado-pago', id, mercadoPagoFixtures.payment({ paymentId: id }));
    const delivery = signMercadoPagoDelivery({
      payload: mercadoPagoFixtures.paymentUpdated({ paymentId: id }),
      secret: SECRET,
    });
    const { answers } = await attack(501, 30, () =>
      post(`${app.url}/webhooks/mercado-pago`, delivery.body, delivery.headers),
    );

    expect(api.count('mercado-pago', id)).toBe(1);
    // NOTE: a replay that arrives while the first delivery's call runs is asked to come again.
    const overlapping = withStatus(answers, 503).length;
    expect(withStatus(answers, 200)).toHaveLength(501 - overlapping);
    expect(await decisions('mercado-pago')).toEqual({
      accepted: 1,
      duplicate: 500 - overlapping,
      ...(overlapping > 0 ? { unconfirmed: overlapping } : {}),
    });
    const [stored] = await rows('mercado-pago');
    expect(stored).toMatchObject({ eventId: `payment:${id}:approved`, type: 'payment.succeeded' });
    await eventually(async () => (await countEffects(app, stored.eventId)) === 1);
    expect(api.count('mercado-pago', id)).toBe(1);
  });

  /** A paid payment, and the same payment once refunded. */
  function paidThenRefunded(id: string) {
    const paid = mollieFixtures.payment({ paymentId: id, orderId: `order-${id}` });
    const refunds = [{ status: 'refunded' as const }];
    const refunded = mollieFixtures.payment({ paymentId: id, orderId: `order-${id}`, refunds });
    return { paid, refunded };
  }

  /** The payment's stored events are its paid state and its refund, each handled once. */
  async function expectPaidAndRefundStored(id: string): Promise<void> {
    const stored = (await rows('mollie')).filter((row) => row.paymentRef === id);
    expect(stored.map((row) => row.type).sort()).toEqual(['payment.succeeded', 'refund.succeeded']);
    for (const row of stored) {
      await eventually(async () => (await countEffects(app, row.eventId)) === 1);
    }
    expect((await decisions('mollie')).duplicate).toBeUndefined();
  }

  if (!storesChanges) {
    return;
  }

  it('stores a refund Mollie calls about just after the payment was read, once Mollie calls again', async () => {
    const id = paymentId();
    const { paid, refunded } = paidThenRefunded(id);
    api.setPayment('mollie', id, paid);
    expect((await classic('mollie', id)).status).toBe(200);

    // The payment is refunded at once, and Mollie calls about it within 2 s of the read.
    api.setPayment('mollie', id, refunded);
    const answers = await untilAnswered(() => classic('mollie', id));
    expect(answers[0].status).toBe(503);
    expect(JSON.parse(answers[0].body).message).toMatch(
      new RegExp(`^The Mollie API was asked about payment ${id} \\d+ ms ago for another delivery`),
    );
    expect(answers.at(-1)!.status).toBe(200);
    await expectPaidAndRefundStored(id);
  });

  it('does not store a refund from a read another delivery started before the refund', async () => {
    const id = paymentId();
    const { paid, refunded } = paidThenRefunded(id);
    api.setPayment('mollie', id, paid);
    const before = api.count('mollie', id);
    // NOTE: long enough for the second delivery to come while the first one's read runs.
    api.delayMs = 700;
    const first = classic('mollie', id);
    await eventually(() => api.count('mollie', id) === before + 1);
    // NOTE: the read under way answers the state it found when it arrived: paid.
    api.setPayment('mollie', id, refunded);
    const second = await classic('mollie', id);
    api.delayMs = 0;
    expect((await first).status).toBe(200);
    expect(second.status).toBe(503);

    const answers = await untilAnswered(() => classic('mollie', id));
    expect(answers.at(-1)!.status).toBe(200);
    await expectPaidAndRefundStored(id);
  });
});
