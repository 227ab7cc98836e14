import { Injectable } from '@nestjs/common';
import {
  OnPaymentEvent,
  PaymentEvent,
  stripeEndpoint,
  WebhookAdmin,
  WebhookContext,
  WebhookTelemetry,
} from 'nestjs-payment-webhooks';
import { DeliveryRecord } from 'nestjs-payment-webhooks/observability';
import { settled } from 'nestjs-payment-webhooks/testing';
import { Gate } from '../../lib/spec-support/gate';
import { post } from '../support/http';
import { RecordingLogger } from '../support/recording-logger';
import { liveEvent } from '../support/inbox-state';
import { signedStripeEvent, SignedStripeEvent } from '../support/stripe-event';
import { Database, eventually, startTestApp, TestApp, TestEffect } from '../support/test-app';

const SECRET = 'whsec_inline_settlement';
const BOUND_MS = 500;

/** What the `ledger` handler does for a provider event id besides writing its effect. */
interface Script {
  /** Throws on attempt 1, after its write. */
  readonly failFirst?: boolean;
  /** Waits on this after its write, on its first call only. */
  readonly hold?: Promise<void>;
}

const scripts = new Map<string, Script>();
/** Provider event id and handler, once per call. */
const calls: string[] = [];
/** The work rows the `payments` handler's transaction saw for its event (`workRowsSeen`), by provider event id. */
const workSeen = new Map<string, number>();

/**
 * The work rows of `event` a handler's transaction sees: none when it runs in the transaction
 * that stores the event, one (its claim) in the background.
 */
async function workRowsSeen(event: PaymentEvent, ctx: WebhookContext): Promise<number> {
  const { n } = (await ctx.manager
    .createQueryBuilder()
    .select('COUNT(*)', 'n')
    .from('webhook_work', 'w')
    .innerJoin('webhook_events', 'e', 'e.id = w.event_id')
    .where('e.event_id = :id', { id: event.eventId })
    .getRawOne()) as { n: number | string };
  return Number(n);
}

/** Two handlers of one event, each writing an effect row through ctx.manager. */
@Injectable()
class TwoHandlers {
  @OnPaymentEvent('payment.succeeded')
  async payments(event: PaymentEvent, ctx: WebhookContext): Promise<void> {
    await this.effect('payments', event, ctx);
    workSeen.set(event.eventId, await workRowsSeen(event, ctx));
    ctx.recordOutcome('charged');
  }

  @OnPaymentEvent('payment.succeeded')
  async ledger(event: PaymentEvent, ctx: WebhookContext): Promise<void> {
    const first = calls.filter((call) => call === `${event.eventId} ledger`).length === 0;
    await this.effect('ledger', event, ctx);
    const script = scripts.get(event.eventId) ?? {};
    if (first && script.hold) {
      await script.hold;
    }
    if (script.failFirst && ctx.attempt === 1) {
      throw new Error(`ledger refused ${event.eventId} on attempt ${ctx.attempt}`);
    }
  }

  private async effect(handler: string, event: PaymentEvent, ctx: WebhookContext): Promise<void> {
    calls.push(`${event.eventId} ${handler}`);
    await ctx.manager.insert(TestEffect, { eventId: event.eventId, handler, merchantRef: null });
  }
}

/**
 * `dispatch.inline`: a fresh event's handlers run inside the transaction that stores it, so the
 * answer means handled; what cannot finish there goes to the background.
 */
describe.each<Database>(['sqlite', 'postgres'])('settling on the answer path on %s', (database) => {
  let t: TestApp;
  const ph = database === 'postgres' ? (i: number) => `$${i}` : () => '?';
  const deliveries: DeliveryRecord[] = [];
  /** What the journal said of each delivery of `eventId`, in order: the handlers run before its answer. */
  const handledBefore = (eventId: string) =>
    deliveries
      .filter((record) => record.eventIds?.includes(eventId))
      .map((record) => (record.handled ?? []).map(shortKey));

  beforeAll(async () => {
    t = await startTestApp({
      platform: 'express',
      database,
      handlers: [TwoHandlers],
      webhooks: {
        endpoints: [stripeEndpoint({ name: 'stripe', secret: SECRET, orderPerPayment: true })],
        dispatch: {
          // NOTE: held handlers here are not slow ones; the pace has a test of its own below.
          inline: { boundMs: BOUND_MS, slowHandlerMs: 60_000 },
          pollIntervalMs: 100,
          retry: { baseDelayMs: 300, maxDelayMs: 300 },
        },
      },
    });
    t.app.get(WebhookTelemetry).subscribe({ delivery: (record) => deliveries.push(record) });
  });
  afterAll(() => t?.close());

  const deliver = (event: SignedStripeEvent) =>
    post(`${t.url}/webhooks/stripe`, event.body, event.headers);
  const rows = async (sql: string, params: unknown[]) =>
    (await t.dataSource.query(sql, params)) as Record<string, unknown>[];
  const inboxId = async (eventId: string) =>
    (await rows(`SELECT id FROM webhook_events WHERE event_id = ${ph(1)}`, [eventId]))[0]
      ?.id as string;
  const workRows = async (eventId: string) =>
    (
      await rows(`SELECT status FROM webhook_work WHERE event_id = ${ph(1)}`, [
        await inboxId(eventId),
      ])
    ).length;
  const ledger = async (eventId: string) =>
    (
      await rows(
        `SELECT handler_key, attempt, outcome FROM webhook_handler_runs WHERE event_id = ${ph(1)} ORDER BY handler_key`,
        [await inboxId(eventId)],
      )
    ).map((row) => [shortKey(row.handler_key), Number(row.attempt), row.outcome]);
  const callCount = (eventId: string, handler: string) =>
    calls.filter((call) => call === `${eventId} ${handler}`).length;
  const effects = async (eventId: string, handler: string) =>
    Number(
      (
        await rows(
          `SELECT COUNT(*) AS n FROM test_effects WHERE "eventId" = ${ph(1)} AND handler = ${ph(2)}`,
          [eventId, handler],
        )
      )[0].n,
    );

  it('answers once every handler ran: the event processed, its ledger written, no work row', async () => {
    const event = signedStripeEvent(SECRET);

    const answer = await deliver(event);

    expect(answer.status).toBe(200);
    expect(workSeen.get(event.id)).toBe(0);
    // NOTE: read at once, with no wait: the answer came after the commit that handled the event.
    expect(await liveEvent(t.dataSource, event.id)).toMatchObject({
      status: 'processed',
      attempts: 1,
      outcome: 'charged',
      lastError: null,
    });
    expect([await effects(event.id, 'payments'), await effects(event.id, 'ledger')]).toEqual([
      1, 1,
    ]);
    expect(await workRows(event.id)).toBe(0);
    expect(await ledger(event.id)).toEqual([
      ['ledger', 1, null],
      ['payments', 1, 'charged'],
    ]);
    const { event: stored } = await settled(t.app, event.id, { timeoutMs: 1_000 });
    expect(stored.status).toBe('processed');
    expect(handledBefore(event.id)).toEqual([['payments', 'ledger']]);
  });

  it('keeps the handler that ran when another throws, and retries only the one that failed', async () => {
    const event = signedStripeEvent(SECRET);
    scripts.set(event.id, { failFirst: true });

    const answer = await deliver(event);

    expect(answer.status).toBe(200);
    expect(await effects(event.id, 'payments')).toBe(1);
    expect(await effects(event.id, 'ledger')).toBe(0);
    await settled(t.app, event.id, { timeoutMs: 20_000 });
    expect([await effects(event.id, 'payments'), await effects(event.id, 'ledger')]).toEqual([
      1, 1,
    ]);
    expect([callCount(event.id, 'payments'), callCount(event.id, 'ledger')]).toEqual([1, 2]);
    expect(await ledger(event.id)).toEqual([
      ['ledger', 2, null],
      ['payments', 1, 'charged'],
    ]);
    const history = await rows(
      `SELECT handler_key, attempt FROM webhook_history WHERE event_id = ${ph(1)} AND kind = 'attempt'`,
      [await inboxId(event.id)],
    );
    expect(history.map((row) => [shortKey(row.handler_key), Number(row.attempt)])).toEqual([
      ['ledger', 1],
    ]);
    expect(handledBefore(event.id)).toEqual([['payments']]);
  });

  it('answers within the bound when a handler hangs, then runs it once in the background', async () => {
    const event = signedStripeEvent(SECRET);
    const hold = new Gate();
    scripts.set(event.id, { hold: hold.opened });

    const started = Date.now();
    const answer = await deliver(event);
    const answeredMs = Date.now() - started;

    expect(answer.status).toBe(200);
    expect(answeredMs).toBeLessThan(BOUND_MS + 1_000);
    // NOTE: the cut run's write was rolled back; the event waits for that run to return.
    expect(await effects(event.id, 'ledger')).toBe(0);
    expect((await liveEvent(t.dataSource, event.id))?.status).toBe('processing');
    hold.open();
    await settled(t.app, event.id, { timeoutMs: 20_000 });
    expect([await effects(event.id, 'payments'), await effects(event.id, 'ledger')]).toEqual([
      1, 1,
    ]);
    expect([callCount(event.id, 'payments'), callCount(event.id, 'ledger')]).toEqual([1, 2]);
  });

  it("answers a duplicate that arrives during the first delivery's transaction as a duplicate", async () => {
    const event = signedStripeEvent(SECRET);
    const hold = new Gate();
    scripts.set(event.id, { hold: hold.opened });

    const first = deliver(event);
    await eventually(() => callCount(event.id, 'ledger') === 1);
    const second = deliver(event);
    await new Promise((resolve) => setTimeout(resolve, 100));
    hold.open();

    expect([(await first).status, (await second).status]).toEqual([200, 200]);
    await settled(t.app, event.id, { timeoutMs: 20_000 });
    await eventually(async () => (await liveEvent(t.dataSource, event.id))?.deliveryCount === 2);
    expect([callCount(event.id, 'payments'), callCount(event.id, 'ledger')]).toEqual([1, 1]);
    expect([await effects(event.id, 'payments'), await effects(event.id, 'ledger')]).toEqual([
      1, 1,
    ]);
    expect(handledBefore(event.id)).toEqual([['payments', 'ledger'], []]);
  });

  it('leaves an event to the background while an earlier one of its payment is unsettled', async () => {
    const paymentId = `pi_order_${Date.now()}`;
    const earlier = signedStripeEvent(SECRET, { paymentId });
    const later = signedStripeEvent(SECRET, { paymentId });
    const hold = new Gate();
    scripts.set(earlier.id, { failFirst: true, hold: hold.opened });

    expect((await deliver(earlier)).status).toBe(200);
    expect((await deliver(later)).status).toBe(200);

    // NOTE: the earlier event is held (cut off, its run not returned): the later one waits.
    expect(callCount(later.id, 'payments')).toBe(0);
    expect((await liveEvent(t.dataSource, later.id))?.status).toBe('pending');
    hold.open();
    await settled(t.app, later.id, { timeoutMs: 20_000 });
    const processedAt = async (id: string) =>
      (await liveEvent(t.dataSource, id))!.processedAt!.getTime();
    expect(await processedAt(earlier.id)).toBeLessThanOrEqual(await processedAt(later.id));
  });

  it('leaves an event whose handler is paused to the background', async () => {
    const admin = t.app.get(WebhookAdmin);
    const handler = (await ledgerKeys())[0];
    await admin.pause({ endpoint: 'stripe', handler });
    const event = signedStripeEvent(SECRET);
    try {
      expect((await deliver(event)).status).toBe(200);
      expect(callCount(event.id, 'ledger')).toBe(0);
      expect(await workRows(event.id)).toBe(1);
    } finally {
      await admin.resume({ endpoint: 'stripe', handler });
    }
    await settled(t.app, event.id, { timeoutMs: 20_000 });
    expect([await effects(event.id, 'payments'), await effects(event.id, 'ledger')]).toEqual([
      1, 1,
    ]);
    expect(workSeen.get(event.id)).toBe(1);
  });

  async function ledgerKeys(): Promise<string[]> {
    const keys = await rows('SELECT DISTINCT handler_key FROM webhook_handler_runs', []);
    return keys.map((row) => String(row.handler_key)).filter((key) => key.endsWith('ledger'));
  }
});

describe('the log of an event settled on the answer path', () => {
  it("names its handlers on the delivery's journal line, with no line for each run", async () => {
    const logger = new RecordingLogger();
    const t = await startTestApp({
      platform: 'express',
      database: 'sqlite',
      logger,
      handlers: [TwoHandlers],
      webhooks: {
        endpoints: [stripeEndpoint({ name: 'stripe', secret: SECRET })],
        dispatch: { inline: { boundMs: BOUND_MS, slowHandlerMs: 60_000 }, pollIntervalMs: 100 },
      },
    });
    const quiet = signedStripeEvent(SECRET);
    const failing = signedStripeEvent(SECRET);
    scripts.set(failing.id, { failFirst: true });
    try {
      for (const event of [quiet, failing]) {
        expect((await post(`${t.url}/webhooks/stripe`, event.body, event.headers)).status).toBe(
          200,
        );
        await settled(t.app, event.id, { timeoutMs: 20_000 });
      }
    } finally {
      await t.close();
    }
    const journal = (event: SignedStripeEvent) =>
      logger.lines.filter(
        (line) => line.context === 'WebhookIngress' && line.text.includes(`eventId=${event.id}`),
      );

    expect(journal(quiet).map((line) => line.text)).toEqual([
      expect.stringMatching(
        /decision=accepted .* handled=TwoHandlers\.payments,TwoHandlers\.ledger$/,
      ),
    ]);
    expect(journal(failing).map((line) => line.text)).toEqual([
      expect.stringMatching(/ handled=TwoHandlers\.payments$/),
    ]);
    // NOTE: the quiet event's runs and the failing event's first, kept, run have no line of
    // their own; the failure has, and the retry in the background logs as always.
    const runLines = logger.lines
      .filter((line) => line.text.includes(' handler='))
      .map((line) => [line.level, line.text.match(/handler=\S+ attempt=\d+ outcome=\w+/)?.[0]]);
    expect(runLines).toEqual([
      ['warn', 'handler=TwoHandlers.ledger attempt=1 outcome=failed'],
      ['debug', 'handler=TwoHandlers.payments attempt=2 outcome=already_done'],
      ['debug', 'handler=TwoHandlers.ledger attempt=2 outcome=ran_and_settled'],
    ]);
  });
});

/** The one handler of the pace's test: takes `delayMs`, and notes whether it ran in its delivery's transaction. */
@Injectable()
class PacedHandler {
  static delayMs = 0;
  static readonly inline: boolean[] = [];

  @OnPaymentEvent('payment.succeeded')
  async fulfil(event: PaymentEvent, ctx: WebhookContext): Promise<void> {
    PacedHandler.inline.push((await workRowsSeen(event, ctx)) === 0);
    await new Promise((resolve) => setTimeout(resolve, PacedHandler.delayMs));
  }
}

describe.each<Database>(['sqlite', 'postgres'])('a handler turning slow on %s', (database) => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({
      platform: 'express',
      database,
      handlers: [PacedHandler],
      webhooks: {
        endpoints: [stripeEndpoint({ name: 'stripe', secret: SECRET })],
        dispatch: { inline: { boundMs: 5_000, slowHandlerMs: 250 }, pollIntervalMs: 100 },
      },
    });
  });
  afterAll(() => t?.close());

  /** Delivers one event, waits until it is handled, and says whether it ran on the answer path. */
  async function handled(): Promise<boolean> {
    const event = signedStripeEvent(SECRET);
    expect((await post(`${t.url}/webhooks/stripe`, event.body, event.headers)).status).toBe(200);
    await settled(t.app, event.id, { timeoutMs: 20_000 });
    return PacedHandler.inline.at(-1)!;
  }

  it('leaves the answer path while its runs take longer than slowHandlerMs, and comes back', async () => {
    PacedHandler.delayMs = 1_000;
    expect(await handled()).toBe(true);
    expect([await handled(), await handled()]).toEqual([false, false]);

    PacedHandler.delayMs = 0;
    const after: boolean[] = [];
    while (!after.includes(true) && after.length < 40) {
      after.push(await handled());
    }
    // NOTE: each quick run weighs a fifth: from about 1,000 ms the average is under 250 ms after
    // 7 runs of no time at all, after 11 runs of 150 ms each (a very busy machine's).
    expect(after.indexOf(true)).toBeGreaterThanOrEqual(5);
    expect(after.indexOf(true)).toBeLessThan(30);
  });
});

/** A handler key without its class: `TwoHandlers.ledger` is `ledger`. */
function shortKey(key: unknown): string {
  return String(key).split('.').pop()!;
}
