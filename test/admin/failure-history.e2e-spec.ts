import { stripeEndpoint, WebhookAdmin, WebhooksHealthIndicator } from 'nestjs-payment-webhooks';
import type { WebhookAlert } from 'nestjs-payment-webhooks';
import { post } from '../support/http';
import { parkedByPause } from '../support/inbox-state';
import { WebhookEventEntity } from '../support/internals';
import { SignedStripeEvent, signedStripeEvent, stripeEventId } from '../support/stripe-event';
import { countEffects, Database, eventually, startTestApp, TestApp } from '../support/test-app';

/**
 * What an operator reads and does when handlers fail: each failed attempt in the event's
 * history, failures grouped by cause, a group replayed (after a dry run) or discarded, and
 * dispatch paused while a downstream system is down, with deliveries still stored and answered.
 */

const SECRET = 'whsec_failure_history';
const MAX_ATTEMPTS = 2;

function delivery(): SignedStripeEvent {
  const id = stripeEventId();
  return signedStripeEvent(SECRET, { id, orderId: `o-${id}`, amount: 700, currency: 'eur' });
}

/**
 * A refund that succeeded: `refund.succeeded`, which the refunds handler takes. Its dedup key
 * (and so its `id` here) is the refund's id and status.
 */
function refund(): SignedStripeEvent {
  const id = stripeEventId();
  const signed = signedStripeEvent(SECRET, {
    id,
    type: 'refund.created',
    object: {
      id: `re_${id}`,
      object: 'refund',
      status: 'succeeded',
      amount: 300,
      currency: 'eur',
      payment_intent: `pi_${id}`,
    },
  });
  return { ...signed, id: `re_${id}:succeeded` };
}

describe.each<Database>(['sqlite', 'postgres'])('failure history on %s', (database) => {
  let app: TestApp;
  let admin: WebhookAdmin;
  const alerts: WebhookAlert[] = [];

  beforeAll(async () => {
    app = await startTestApp({
      platform: 'express',
      database,
      webhooks: {
        endpoints: [stripeEndpoint({ name: 'stripe', secret: SECRET })],
        dispatch: {
          pollIntervalMs: 20,
          retry: { maxAttempts: MAX_ATTEMPTS, baseDelayMs: 10, maxDelayMs: 20 },
        },
        observability: { alerts: { onAlert: (alert) => void alerts.push(alert) } },
      },
    });
    admin = app.app.get(WebhookAdmin);
  });

  afterAll(() => app.close());

  async function send(event = delivery()): Promise<SignedStripeEvent> {
    const response = await post(`${app.url}/webhooks/stripe`, event.body, event.headers);
    expect(response.status).toBe(200);
    return event;
  }

  async function rowOf(eventId: string): Promise<WebhookEventEntity> {
    return app.dataSource.getRepository(WebhookEventEntity).findOneByOrFail({ eventId });
  }

  async function settledAs(status: string, ...events: SignedStripeEvent[]): Promise<void> {
    await eventually(async () =>
      (await Promise.all(events.map((event) => rowOf(event.id)))).every(
        (row) => row.status === status,
      ),
    );
  }

  /** Waits until the dispatcher has looked at each event and a pause held it. */
  async function heldByPause(...events: SignedStripeEvent[]): Promise<void> {
    await eventually(async () =>
      (await Promise.all(events.map((event) => parkedByPause(app.dataSource, event.id)))).every(
        Boolean,
      ),
    );
  }

  it('keeps every failed attempt, a replay and its next attempts in the event timeline', async () => {
    const event = delivery();
    app.control.scripts.set(event.id, { alwaysFail: true });
    await send(event);
    await settledAs('dead', event);
    const { id } = await rowOf(event.id);

    const dead = await admin.show(id);
    const attempts = dead!.history.filter((entry) => entry.kind === 'attempt');
    expect(attempts.map((entry) => [entry.attempt, entry.handlerKey, entry.outcome])).toEqual([
      [1, 'TestPaymentHandlers.onPayment', 'retrying'],
      [2, 'TestPaymentHandlers.onPayment', 'dead'],
    ]);
    for (const entry of attempts) {
      expect(entry.errorClass).toBe('Error');
      expect(entry.error!.split('\n')[0]).toBe(
        `Error: handler failure on attempt ${entry.attempt}`,
      );
      // Frames follow on their own lines, with paths relative to the app.
      expect(entry.error!.split('\n')[1]).toMatch(/^ {4}at /);
      expect(entry.error).not.toContain(`${process.cwd()}/`);
      expect(entry.worker).toEqual(expect.any(String));
      expect(entry.finishedAt!.getTime()).toBeGreaterThanOrEqual(entry.at.getTime());
    }
    expect(attempts[0].fingerprint).toBe(attempts[1].fingerprint);
    // First failure of its group, then the final one, each naming the commands to run.
    expect(alerts.map((alert) => alert.kind)).toEqual(['handler_failing', 'dead_letter']);
    expect(alerts[0]).toMatchObject({ id, fingerprint: attempts[0].fingerprint, attempt: 1 });
    expect(alerts[1].message).toContain(`events replay --group ${attempts[0].fingerprint}`);

    app.control.scripts.delete(event.id);
    expect(await admin.redeliver(id, { actor: 'alice@cli' })).toBe(true);
    await settledAs('processed', event);
    const after = await admin.show(id);
    expect(after!.history.map((entry) => [entry.kind, entry.outcome, entry.actor])).toEqual([
      ['attempt', 'retrying', null],
      ['attempt', 'dead', null],
      ['replay', 'dead', 'alice@cli'],
    ]);
    expect(after!.handlerRuns).toEqual([
      expect.objectContaining({ handlerKey: 'TestPaymentHandlers.onPayment', attempt: 1 }),
    ]);
    expect(await countEffects(app, event.id)).toBe(1);
    expect(alerts.map((alert) => alert.kind)).toEqual([
      'handler_failing',
      'dead_letter',
      'handler_recovered',
    ]);
  });

  it('groups dead events by cause, replays one group after a dry run and discards another', async () => {
    const endpoint = 'stripe';
    const flaky = [delivery(), delivery(), delivery()];
    const poisoned = [delivery(), delivery()];
    flaky.forEach((event) => app.control.scripts.set(event.id, { alwaysFail: true }));
    poisoned.forEach((event) => app.control.scripts.set(event.id, { nonRetryable: true }));
    for (const event of [...flaky, ...poisoned]) {
      await send(event);
    }
    await settledAs('dead', ...flaky, ...poisoned);

    const groups = await admin.failureGroups({ endpoint });
    const flakyGroup = groups.find((group) => group.errorClass === 'Error')!;
    const poisonGroup = groups.find((group) => group.errorClass === 'NonRetryableError')!;
    expect(flakyGroup).toMatchObject({
      endpoint,
      handlerKey: 'TestPaymentHandlers.onPayment',
      count: 3,
      dead: 3,
    });
    expect(flakyGroup.sampleError).toMatch(/^Error: handler failure on attempt 2\n/);
    expect(poisonGroup).toMatchObject({ count: 2, dead: 2 });
    expect(flakyGroup.lastSeen.getTime()).toBeGreaterThanOrEqual(flakyGroup.firstSeen.getTime());
    expect(await admin.failureGroups({ error: 'CAN NEVER BE APPLIED' })).toEqual([poisonGroup]);
    expect(await admin.failureGroups({ handler: 'Nobody.here' })).toEqual([]);

    const dryRun = await admin.replay({ fingerprint: flakyGroup.fingerprint, dryRun: true });
    expect(dryRun).toMatchObject({ replayed: 0, wouldReplay: 3 });
    expect(dryRun.sample).toHaveLength(3);
    expect((await rowOf(flaky[0].id)).status).toBe('dead');

    flaky.forEach((event) => app.control.scripts.delete(event.id));
    const replayed = await admin.replay({ fingerprint: flakyGroup.fingerprint, actor: 'bob' });
    expect(replayed).toEqual({ replayed: 3 });
    await settledAs('processed', ...flaky);
    for (const event of flaky) {
      expect(await countEffects(app, event.id)).toBe(1);
    }
    const replay = (await admin.show((await rowOf(flaky[0].id)).id))!.history.at(-1)!;
    expect(replay).toMatchObject({ kind: 'replay', actor: 'bob', outcome: 'dead' });
    expect(JSON.parse(replay.detail!)).toEqual({
      fingerprint: flakyGroup.fingerprint,
      status: 'dead',
    });

    expect(
      await admin.discard(
        { fingerprint: poisonGroup.fingerprint },
        { reason: 'order deleted', dryRun: true },
      ),
    ).toEqual({
      discarded: 0,
      wouldDiscard: 2,
    });
    expect(
      await admin.discard(
        { fingerprint: poisonGroup.fingerprint },
        { reason: 'order deleted', actor: 'bob' },
      ),
    ).toEqual({ discarded: 2 });
    await settledAs('ignored', ...poisoned);
    expect((await admin.show((await rowOf(poisoned[0].id)).id))!.history.at(-1)).toMatchObject({
      kind: 'settle',
      outcome: 'ignored',
      actor: 'bob',
      detail: 'order deleted',
    });
    expect(await admin.failureGroups({ endpoint })).toEqual([]);
  });

  it('holds dispatch while paused, still answering and storing, and runs everything once resumed', async () => {
    expect(await admin.pause({ endpoint: 'stripe' }, { actor: 'carol', reason: 'ERP down' })).toBe(
      true,
    );
    expect(await admin.pause({ endpoint: 'stripe' })).toBe(false);
    const pause = expect.objectContaining({
      endpoint: 'stripe',
      handler: '*',
      pausedBy: 'carol',
      reason: 'ERP down',
    });
    expect(await admin.pauses()).toEqual([pause]);
    await eventually(async () => {
      const health = await app.app.get(WebhooksHealthIndicator).checkHealth();
      return health.paused.length === 1;
    });
    expect((await app.app.get(WebhooksHealthIndicator).checkHealth()).paused).toEqual([pause]);
    // NOTE: a pause made through this process's admin holds its own dispatcher at once.
    const held = [delivery(), delivery(), refund()];
    for (const event of held) {
      await send(event);
    }
    // Stored and answered; nothing runs, no attempt is spent.
    await heldByPause(...held);
    for (const event of held) {
      expect(await countEffects(app, event.id)).toBe(0);
      const row = await rowOf(event.id);
      expect(['pending', 'retrying']).toContain(row.status);
    }
    expect(
      app.control.calls.filter((call) => held.some((event) => event.id === call.eventId)),
    ).toEqual([]);

    expect(await admin.resume({ endpoint: 'stripe' })).toBe(3);
    expect(await admin.resume({ endpoint: 'stripe' })).toBeNull();
    await settledAs('processed', ...held);
    for (const event of held) {
      expect(await countEffects(app, event.id)).toBe(1);
      expect(app.control.calls.filter((call) => call.eventId === event.id)).toEqual([
        expect.objectContaining({ attempt: 1 }),
      ]);
    }
  });

  it('holds one handler while the others run, and keeps the pause across a restart', async () => {
    expect(await admin.pause({ handler: 'TestPaymentHandlers.onRefund' })).toBe(true);
    const payment = await send(delivery());
    const held = await send(refund());
    await settledAs('processed', payment);
    await heldByPause(held);
    expect(await countEffects(app, held.id)).toBe(0);

    const restarted = await startTestApp({
      platform: 'express',
      database,
      databaseUrl: app.databaseUrl,
      sqliteFile: app.sqliteFile,
      webhooks: {
        endpoints: [stripeEndpoint({ name: 'stripe', secret: SECRET })],
        dispatch: { enabled: false },
      },
    }).catch((error: unknown) => {
      throw error;
    });
    try {
      expect(await restarted.app.get(WebhookAdmin).pauses()).toEqual([
        expect.objectContaining({ endpoint: '*', handler: 'TestPaymentHandlers.onRefund' }),
      ]);
    } finally {
      await restarted.close();
    }

    expect(await admin.resume({ handler: 'TestPaymentHandlers.onRefund' })).toBe(1);
    await settledAs('processed', held);
    expect(await countEffects(app, held.id)).toBe(1);
  });
});
