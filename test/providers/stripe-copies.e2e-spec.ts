import { Injectable } from '@nestjs/common';
import {
  OnPaymentEvent,
  stripeEndpoint,
  tenantEndpoint,
  type PaymentEvent,
  type WebhookContext,
  type WebhooksModuleOptions,
} from 'nestjs-payment-webhooks';
import { Gate } from '../../lib/spec-support/gate';
import { post } from '../support/http';
import { MatrixApp, MatrixPlatform, startRouterApp } from '../support/router-app';
import {
  relatedPaymentIntent,
  SignedStripeEvent,
  signedStripeEvent,
  signedStripeNotification,
} from '../support/stripe-event';
import {
  applyTestEffect,
  countEffects,
  Database,
  eventually,
  HandlerControl,
  startTestApp,
  statementsSent,
  TestApp,
  TestEffect,
} from '../support/test-app';

/**
 * One ledger for Stripe's two copies of an event, at two endpoints paired for it: the snapshot
 * event at one endpoint, the event notification naming it as `snapshot_event` at the endpoint
 * whose `snapshotEndpoint` names the first (Stripe sends them to two destinations). Handlers run
 * once per event, whichever copy comes first, and each delivery is answered 200 and counted on
 * the one stored row. Endpoints not paired store each copy as 1.0 did: an event of its own.
 * Signed by Stripe's own SDK.
 */

const SNAPSHOT_SECRET = 'whsec_copies_snapshot';
const THIN_SECRET = 'whsec_copies_thin';
/** Another endpoint of snapshot events, not paired: an account's second destination. */
const OTHER_SECRET = 'whsec_copies_other';
const TENANT_SECRETS: Record<string, string> = {
  acme: 'whsec_copies_acme',
  globex: 'whsec_copies_globex',
};

/** Both copies of one payment's `payment_intent.succeeded`, signed for their destinations. */
interface Copies {
  readonly snapshot: SignedStripeEvent;
  readonly thin: SignedStripeEvent;
}

function copiesOf(snapshotSecret = SNAPSHOT_SECRET, thinSecret = THIN_SECRET): Copies {
  const snapshot = signedStripeEvent(snapshotSecret);
  const thin = signedStripeNotification(thinSecret, {
    snapshot_event: snapshot.id,
    ...relatedPaymentIntent(`pi_${snapshot.id}`),
  });
  return { snapshot, thin };
}

/** The shop's handler, for the events of every endpoint: one effect row per run. */
@Injectable()
class CopyHandlers {
  constructor(private readonly control: HandlerControl) {}

  @OnPaymentEvent('payment.succeeded', { endpoint: '*' })
  async paid(event: PaymentEvent, ctx: WebhookContext): Promise<void> {
    await applyTestEffect(this.control, 'paid', event, ctx);
  }
}

/** A handler of one endpoint not paired: it runs for that endpoint's events only. */
@Injectable()
class OtherEndpointHandlers {
  constructor(private readonly control: HandlerControl) {}

  @OnPaymentEvent('payment.succeeded', { endpoint: 'stripe-other' })
  async paidAtOther(event: PaymentEvent, ctx: WebhookContext): Promise<void> {
    await applyTestEffect(this.control, 'paidAtOther', event, ctx);
  }
}

/** The endpoints of the matrix: two pairs (one of tenants) and three endpoints not paired. */
const ENDPOINTS = () => {
  const resolveTenant = async ({ tenant }: { tenant: string }) =>
    TENANT_SECRETS[tenant] ? { secret: TENANT_SECRETS[tenant] } : null;
  return [
    stripeEndpoint({ name: 'stripe', secret: SNAPSHOT_SECRET }),
    stripeEndpoint({ name: 'stripe-thin', secret: THIN_SECRET, snapshotEndpoint: 'stripe' }),
    stripeEndpoint({ name: 'stripe-other', secret: OTHER_SECRET }),
    stripeEndpoint({ name: 'stripe-moved', secret: SNAPSHOT_SECRET }),
    stripeEndpoint({ name: 'stripe-thin-own', secret: THIN_SECRET }),
    tenantEndpoint(stripeEndpoint, { name: 'merchants', resolveTenant }),
    tenantEndpoint(stripeEndpoint, {
      name: 'merchants-thin',
      snapshotEndpoint: 'merchants',
      resolveTenant,
    }),
  ];
};

interface StoredRow {
  event_id: string;
  endpoint: string;
  tenant: string;
  delivery_count: number | string;
  status: string;
  same_event: string | null;
}

/** Where the handlers of a fresh event run: after the answer, or on the answer path too. */
type Settling = 'background' | 'inline';
type Case = [MatrixPlatform, Database, Settling];

describe.each<Case>([
  ['express', 'sqlite', 'background'],
  ['express', 'postgres', 'background'],
  ['router', 'sqlite', 'background'],
  ['router', 'postgres', 'background'],
  ['express', 'postgres', 'inline'],
  ['router', 'sqlite', 'inline'],
])(
  'Stripe copies of one event on %s with %s, handlers run in the %s',
  (platform, database, settling) => {
    let app: MatrixApp;

    beforeAll(async () => {
      const webhooks: WebhooksModuleOptions = {
        endpoints: ENDPOINTS(),
        dispatch: { pollIntervalMs: 50, inline: settling === 'inline' },
      };
      const control = new HandlerControl();
      if (platform === 'router') {
        app = await startRouterApp({
          database,
          webhooks,
          control,
          handlers: [
            {
              on: 'payment.succeeded',
              name: 'paid',
              endpoint: '*',
              handle: (event, ctx) => applyTestEffect(control, 'paid', event, ctx),
            },
            {
              on: 'payment.succeeded',
              name: 'paidAtOther',
              endpoint: 'stripe-other',
              handle: (event, ctx) => applyTestEffect(control, 'paidAtOther', event, ctx),
            },
          ],
        });
      } else {
        const t = await startTestApp({
          platform,
          database,
          webhooks,
          control,
          handlers: [CopyHandlers, OtherEndpointHandlers],
        });
        app = { ...t, settledTarget: t.app, stop: () => t.app.close() };
      }
    });

    afterAll(() => app?.close());

    const send = (endpoint: string, event: SignedStripeEvent) =>
      post(`${app.url}/webhooks/${endpoint}`, event.body, event.headers);

    async function rows(...eventIds: string[]): Promise<StoredRow[]> {
      const marks = eventIds.map((_, i) => (database === 'postgres' ? `$${i + 1}` : '?'));
      return app.dataSource.query(
        'SELECT event_id, endpoint, tenant, delivery_count, status, same_event FROM webhook_events ' +
          `WHERE event_id IN (${marks.join(', ')}) ORDER BY tenant, event_id`,
        eventIds,
      );
    }

    async function effects(...eventIds: string[]): Promise<number> {
      const counts = await Promise.all(eventIds.map((id) => countEffects(app, id)));
      return counts.reduce((sum, n) => sum + n, 0);
    }

    /** Waits until every stored row of `eventIds` is settled, then counts their effects. */
    async function settledEffects(...eventIds: string[]): Promise<number> {
      await eventually(async () => {
        const stored = await rows(...eventIds);
        return stored.length > 0 && stored.every((row) => row.status === 'processed');
      });
      return effects(...eventIds);
    }

    it('runs handlers once when the snapshot event comes first and its notification second', async () => {
      const { snapshot, thin } = copiesOf();
      expect((await send('stripe', snapshot)).status).toBe(200);
      expect((await send('stripe-thin', thin)).status).toBe(200);

      expect(await settledEffects(snapshot.id, thin.id)).toBe(1);
      expect(await rows(snapshot.id, thin.id)).toEqual([
        expect.objectContaining({
          event_id: snapshot.id,
          endpoint: 'stripe',
          same_event: `stripe:${snapshot.id}`,
        }),
      ]);
      const [row] = await rows(snapshot.id);
      expect(Number(row.delivery_count)).toBe(2);
    });

    it('runs handlers once when the notification comes first and the snapshot event second', async () => {
      const { snapshot, thin } = copiesOf();
      expect((await send('stripe-thin', thin)).status).toBe(200);
      expect((await send('stripe', snapshot)).status).toBe(200);

      expect(await settledEffects(snapshot.id, thin.id)).toBe(1);
      const stored = await rows(snapshot.id, thin.id);
      expect(stored).toEqual([
        expect.objectContaining({ event_id: thin.id, endpoint: 'stripe-thin' }),
      ]);
      expect(Number(stored[0].delivery_count)).toBe(2);
    });

    it('counts a retry of either copy as one more delivery of the one event', async () => {
      const { snapshot, thin } = copiesOf();
      for (const [endpoint, event] of [
        ['stripe', snapshot],
        ['stripe-thin', thin],
        ['stripe-thin', thin],
        ['stripe', snapshot],
      ] as const) {
        expect((await send(endpoint, event)).status).toBe(200);
      }
      expect(await settledEffects(snapshot.id, thin.id)).toBe(1);
      const stored = await rows(snapshot.id, thin.id);
      expect(stored).toHaveLength(1);
      expect(Number(stored[0].delivery_count)).toBe(4);
    });

    it('runs handlers once per event when both copies of many events arrive at once', async () => {
      const pairs = Array.from({ length: 20 }, () => copiesOf());
      const answers = await Promise.all(
        pairs.flatMap(({ snapshot, thin }) => [
          send('stripe', snapshot),
          send('stripe-thin', thin),
        ]),
      );
      expect(answers.map((answer) => answer.status)).toEqual(answers.map(() => 200));

      for (const { snapshot, thin } of pairs) {
        expect(await settledEffects(snapshot.id, thin.id)).toBe(1);
        const stored = await rows(snapshot.id, thin.id);
        expect(stored).toHaveLength(1);
        expect(Number(stored[0].delivery_count)).toBe(2);
      }
    });

    it('keeps a notification without snapshot_event as an event of its own', async () => {
      const snapshot = signedStripeEvent(SNAPSHOT_SECRET);
      // NOTE: a v2 resource's notification: no snapshot event, so nothing to be a copy of.
      const thin = signedStripeNotification(THIN_SECRET, relatedPaymentIntent(`pi_${snapshot.id}`));
      expect((await send('stripe', snapshot)).status).toBe(200);
      expect((await send('stripe-thin', thin)).status).toBe(200);

      expect(await settledEffects(snapshot.id, thin.id)).toBe(2);
      expect(await rows(snapshot.id, thin.id)).toHaveLength(2);
    });

    it('keeps a notification whose type needs its object as an event of its own', async () => {
      // NOTE: the snapshot event of a refund's update is refund.succeeded by its object; the
      // notification cannot say, so it keeps its own type, and its own handlers.
      const refund = { id: `re_${Date.now()}`, object: 'refund', amount: 300, status: 'succeeded' };
      const snapshot = signedStripeEvent(SNAPSHOT_SECRET, {
        type: 'refund.updated',
        object: refund,
      });
      const thin = signedStripeNotification(THIN_SECRET, {
        type: 'v1.refund.updated',
        snapshot_event: snapshot.id,
      });
      expect((await send('stripe-thin', thin)).status).toBe(200);
      expect((await send('stripe', snapshot)).status).toBe(200);
      expect(await rows(`${refund.id}:succeeded`, thin.id)).toEqual([
        expect.objectContaining({ event_id: thin.id, endpoint: 'stripe-thin', delivery_count: 1 }),
        expect.objectContaining({ event_id: `${refund.id}:succeeded`, endpoint: 'stripe' }),
      ]);
    });

    it('stores one event at two endpoints not paired twice, each running its own handlers', async () => {
      // NOTE: as 1.0: an account with two destinations of snapshot events, or a URL moved.
      const moved = signedStripeEvent(SNAPSHOT_SECRET);
      const other = signedStripeEvent(OTHER_SECRET, { id: moved.id });
      expect((await send('stripe-moved', moved)).status).toBe(200);
      expect((await send('stripe-other', other)).status).toBe(200);

      expect(await settledEffects(moved.id)).toBe(3);
      const stored = await rows(moved.id);
      expect(
        stored.map((row) => [row.endpoint, Number(row.delivery_count), row.same_event]).sort(),
      ).toEqual([
        ['stripe-moved', 1, null],
        ['stripe-other', 1, null],
      ]);
      const handlers = await app.dataSource.getRepository(TestEffect).findBy({ eventId: moved.id });
      expect(handlers.map((effect) => effect.handler).sort()).toEqual([
        'paid',
        'paid',
        'paidAtOther',
      ]);
    });

    it('keeps a notification at a thin endpoint not paired as an event of its own', async () => {
      const { snapshot, thin } = copiesOf(SNAPSHOT_SECRET, THIN_SECRET);
      expect((await send('stripe', snapshot)).status).toBe(200);
      expect((await send('stripe-thin-own', thin)).status).toBe(200);

      expect(await settledEffects(snapshot.id, thin.id)).toBe(2);
      const stored = await rows(snapshot.id, thin.id);
      expect(stored.map((row) => [row.endpoint, Number(row.delivery_count)]).sort()).toEqual([
        ['stripe', 1],
        ['stripe-thin-own', 1],
      ]);
      // NOTE: the snapshot endpoint is paired with stripe-thin, so its event has a key; the
      // notification at the endpoint not paired has none.
      expect(stored.find((row) => row.endpoint === 'stripe-thin-own')?.same_event).toBeNull();
    });

    it('runs handlers once for the copies of one event at one tenant of a tenant pair', async () => {
      const { snapshot, thin } = copiesOf(TENANT_SECRETS.acme, TENANT_SECRETS.acme);
      expect((await send('merchants-thin/acme', thin)).status).toBe(200);
      expect((await send('merchants/acme', snapshot)).status).toBe(200);

      expect(await settledEffects(snapshot.id, thin.id)).toBe(1);
      const stored = await rows(snapshot.id, thin.id);
      expect(stored).toEqual([
        expect.objectContaining({
          event_id: thin.id,
          endpoint: 'merchants-thin',
          tenant: 'acme',
          same_event: `merchants:${snapshot.id}`,
        }),
      ]);
      expect(Number(stored[0].delivery_count)).toBe(2);
    });

    it('keeps the copies of one event id at two tenants as two events', async () => {
      const { snapshot, thin } = copiesOf(TENANT_SECRETS.acme, TENANT_SECRETS.globex);
      expect((await send('merchants/acme', snapshot)).status).toBe(200);
      expect((await send('merchants-thin/globex', thin)).status).toBe(200);

      expect(await settledEffects(snapshot.id, thin.id)).toBe(2);
      expect(await rows(snapshot.id, thin.id)).toEqual([
        expect.objectContaining({ event_id: snapshot.id, tenant: 'acme' }),
        expect.objectContaining({ event_id: thin.id, tenant: 'globex' }),
      ]);
    });
  },
);

describe('Stripe copies of one event stored while a handler holds the SQLite file', () => {
  let app: TestApp;
  let control: HandlerControl;

  beforeAll(async () => {
    control = new HandlerControl();
    app = await startTestApp({
      platform: 'express',
      database: 'sqlite',
      control,
      handlers: [CopyHandlers],
      webhooks: {
        endpoints: [
          stripeEndpoint({ name: 'stripe', secret: SNAPSHOT_SECRET }),
          stripeEndpoint({ name: 'stripe-thin', secret: THIN_SECRET, snapshotEndpoint: 'stripe' }),
          stripeEndpoint({ name: 'stripe-own', secret: OTHER_SECRET }),
        ],
        dispatch: { pollIntervalMs: 50 },
      },
    });
  });

  afterAll(() => app?.close());

  const send = (endpoint: string, event: SignedStripeEvent) =>
    post(`${app.url}/webhooks/${endpoint}`, event.body, event.headers);

  /** Runs `deliver` while a handler holds the database file in its transaction. */
  async function whileHeld(deliver: () => Promise<void>): Promise<void> {
    const held = new Gate();
    const slow = signedStripeEvent(SNAPSHOT_SECRET);
    control.scripts.set(slow.id, { until: held.opened });
    try {
      expect((await send('stripe', slow)).status).toBe(200);
      await eventually(() => control.calls.some((call) => call.eventId === slow.id));
      await deliver();
    } finally {
      held.open();
    }
    await eventually(async () => (await countEffects(app, slow.id)) === 1, 20_000);
  }

  async function stored(...eventIds: string[]): Promise<StoredRow[]> {
    return app.dataSource.query(
      'SELECT event_id, endpoint, tenant, delivery_count, status FROM webhook_events ' +
        `WHERE event_id IN (${eventIds.map(() => '?').join(', ')})`,
      eventIds,
    );
  }

  async function settledOnce({ snapshot, thin }: Copies, first: string): Promise<void> {
    await eventually(
      async () => (await stored(snapshot.id, thin.id)).every((row) => row.status === 'processed'),
      20_000,
    );
    const rows = await stored(snapshot.id, thin.id);
    expect(rows).toEqual([expect.objectContaining({ event_id: first, delivery_count: 2 })]);
    expect((await countEffects(app, snapshot.id)) + (await countEffects(app, thin.id))).toBe(1);
  }

  it('looks for a stored copy only at paired endpoints', async () => {
    const looks = (sent: string[]) => sent.filter((sql) => sql.includes('AND same_event =')).length;
    const own = signedStripeEvent(OTHER_SECRET);
    expect(
      looks(
        await statementsSent(app, async () => {
          expect((await send('stripe-own', own)).status).toBe(200);
        }),
      ),
    ).toBe(0);
    const paired = signedStripeEvent(SNAPSHOT_SECRET);
    expect(
      looks(
        await statementsSent(app, async () => {
          expect((await send('stripe', paired)).status).toBe(200);
        }),
      ),
    ).toBeGreaterThan(0);
  });

  it('counts both copies as one event when both wait in the intake', async () => {
    const copies = copiesOf();
    await whileHeld(async () => {
      expect((await send('stripe', copies.snapshot)).status).toBe(200);
      expect((await send('stripe-thin', copies.thin)).status).toBe(200);
    });
    await settledOnce(copies, copies.snapshot.id);
  });

  it('counts a copy that waits in the intake on the event already stored', async () => {
    const copies = copiesOf();
    expect((await send('stripe-thin', copies.thin)).status).toBe(200);
    await eventually(async () => (await countEffects(app, copies.thin.id)) === 1);
    await whileHeld(async () => {
      expect((await send('stripe', copies.snapshot)).status).toBe(200);
    });
    await settledOnce(copies, copies.thin.id);
  });
});
