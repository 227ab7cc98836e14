import { Injectable } from '@nestjs/common';
import {
  OnPaymentEvent,
  PaymentEvent,
  WebhookContext,
  stripeEndpoint,
} from 'nestjs-payment-webhooks';
import { FakeProviderApi } from '../../lib/spec-support/fake-provider-api';
import { post } from '../support/http';
import { WebhookEventEntity } from '../support/internals';
import { RecordingLogger } from '../support/recording-logger';
import {
  SignedStripeEvent,
  relatedPaymentIntent,
  signedStripeEvent,
  signedStripeNotification,
} from '../support/stripe-event';
import {
  Database,
  HandlerControl,
  TestApp,
  applyTestEffect,
  countEffects,
  eventually,
  startTestApp,
} from '../support/test-app';

const ACCOUNT_SECRET = 'whsec_account_endpoint';
const CONNECT_SECRET = 'whsec_connect_endpoint';
const KEYLESS_SECRET = 'whsec_connect_keyless';
const CONNECTED = 'acct_1Nv0FGQ9RKHgCVdK';
/** Endpoints whose handler asks Stripe: the ones with an API key. */
const WITH_API = new Set(['stripe', 'stripe-connect']);

/** What a handler saw: the account, and the status Stripe answered as that account. */
interface Seen {
  endpoint: string;
  eventId: string;
  account: string | null;
  /** `event.account`, which must say the same as `ctx.account`. */
  eventAccount: string | null;
  status?: string;
}

@Injectable()
class ConnectHandlers {
  static seen: Seen[] = [];

  constructor(private readonly control: HandlerControl) {}

  @OnPaymentEvent('payment.succeeded')
  async paid(event: PaymentEvent, ctx: WebhookContext): Promise<void> {
    const status = WITH_API.has(event.endpoint) ? (await ctx.fetchStatus()).status : undefined;
    ConnectHandlers.seen.push({
      endpoint: event.endpoint,
      eventId: event.eventId,
      account: ctx.account,
      eventAccount: event.account,
      status,
    });
    await applyTestEffect(this.control, 'paid', event, ctx);
  }
}

let sequence = 0;
function paymentIntentId(): string {
  sequence += 1;
  return `pi_connect_${process.pid}_${Date.now().toString(36)}_${sequence}`;
}

describe.each<Database>(['sqlite', 'postgres'])('Stripe Connect on %s', (database) => {
  let fake: FakeProviderApi;
  let app: TestApp;
  const logger = new RecordingLogger();

  beforeAll(async () => {
    fake = await FakeProviderApi.start();
    const api = fake.clientOptions('stripe');
    app = await startTestApp({
      platform: 'express',
      database,
      logger,
      handlers: [ConnectHandlers],
      webhooks: {
        endpoints: [
          stripeEndpoint({ name: 'stripe', secret: ACCOUNT_SECRET, api }),
          stripeEndpoint({ name: 'stripe-connect', secret: CONNECT_SECRET, api, livemode: 'live' }),
          stripeEndpoint({ name: 'stripe-connect-keyless', secret: KEYLESS_SECRET }),
        ],
        dispatch: { pollIntervalMs: 50 },
      },
    });
  });

  afterAll(async () => {
    await app?.close();
    await fake?.close();
  });

  beforeEach(() => {
    ConnectHandlers.seen = [];
    fake.reset();
  });

  function send(endpoint: string, event: SignedStripeEvent) {
    return post(`${app.url}/webhooks/${endpoint}`, event.body, {
      'content-type': 'application/json',
      ...event.headers,
    });
  }

  function rowOf(endpoint: string, eventId: string): Promise<WebhookEventEntity | null> {
    return app.dataSource.getRepository(WebhookEventEntity).findOneBy({ endpoint, eventId });
  }

  async function processed(endpoint: string, eventId: string): Promise<void> {
    await eventually(async () => (await rowOf(endpoint, eventId))?.status === 'processed');
  }

  function journal(eventId: string): string[] {
    return logger
      .of('WebhookIngress')
      .map((line) => line.text)
      .filter((text) => text.includes(eventId));
  }

  it('runs an account endpoint and a Connect endpoint side by side, each with its own secret', async () => {
    const own = paymentIntentId();
    const theirs = paymentIntentId();
    fake
      .setPayment('stripe', own, { status: 'succeeded' })
      .setPayment('stripe', theirs, { status: 'succeeded' })
      .setStripeAccount(theirs, CONNECTED);
    const ownEvent = signedStripeEvent(ACCOUNT_SECRET, {
      paymentId: own,
      extra: { livemode: true },
    });
    const connectEvent = signedStripeEvent(CONNECT_SECRET, {
      paymentId: theirs,
      extra: { livemode: true, account: CONNECTED },
    });

    expect((await send('stripe', connectEvent)).status).toBe(400);
    expect((await send('stripe', ownEvent)).status).toBe(200);
    expect((await send('stripe-connect', connectEvent)).status).toBe(200);
    await processed('stripe', ownEvent.id);
    await processed('stripe-connect', connectEvent.id);

    expect(await rowOf('stripe', connectEvent.id)).toBeNull();
    expect(ConnectHandlers.seen.sort((a, b) => a.endpoint.localeCompare(b.endpoint))).toEqual([
      {
        endpoint: 'stripe',
        eventId: ownEvent.id,
        account: null,
        eventAccount: null,
        status: 'succeeded',
      },
      {
        endpoint: 'stripe-connect',
        eventId: connectEvent.id,
        account: CONNECTED,
        eventAccount: CONNECTED,
        status: 'succeeded',
      },
    ]);
    const asked = (id: string) =>
      fake.requestsTo('stripe').filter((request) => request.url.endsWith(`/payment_intents/${id}`));
    expect(asked(own).map((request) => request.headers['stripe-account'])).toEqual([undefined]);
    expect(asked(theirs).map((request) => request.headers['stripe-account'])).toEqual([CONNECTED]);
  });

  it('gives a notification’s context to ctx.account and event.account, and asks Stripe with its Stripe-Context', async () => {
    const theirs = paymentIntentId();
    fake.setPayment('stripe', theirs, { status: 'succeeded' }).setStripeAccount(theirs, CONNECTED);
    const notification = signedStripeNotification(CONNECT_SECRET, {
      ...relatedPaymentIntent(theirs),
      livemode: true,
      context: CONNECTED,
    });

    expect((await send('stripe-connect', notification)).status).toBe(200);
    await processed('stripe-connect', notification.id);

    expect(ConnectHandlers.seen).toEqual([
      {
        endpoint: 'stripe-connect',
        eventId: notification.id,
        account: CONNECTED,
        eventAccount: CONNECTED,
        status: 'succeeded',
      },
    ]);
    const [request] = fake.requestsTo('stripe');
    expect([request.headers['stripe-context'], request.headers['stripe-account']]).toEqual([
      CONNECTED,
      undefined,
    ]);
  });

  it('answers a test-mode event at an endpoint for live events 200, stores nothing and journals why', async () => {
    const snapshot = signedStripeEvent(CONNECT_SECRET, {
      extra: { livemode: false, account: CONNECTED },
    });
    const notification = signedStripeNotification(CONNECT_SECRET, {
      ...relatedPaymentIntent(paymentIntentId()),
      context: CONNECTED,
    });

    for (const event of [snapshot, notification, snapshot]) {
      expect((await send('stripe-connect', event)).status).toBe(200);
    }

    expect(await rowOf('stripe-connect', snapshot.id)).toBeNull();
    expect(await rowOf('stripe-connect', notification.id)).toBeNull();
    for (const id of [snapshot.id, notification.id]) {
      const [line] = journal(id);
      expect(line).toContain('decision=skipped');
      expect(line).toContain('status=200');
      expect(line).toContain(
        "a test-mode event at an endpoint for live events only (livemode: 'live')",
      );
    }
    expect(journal(snapshot.id)).toHaveLength(2);
    // NOTE: a live event sent after them is taken, so the worker had its chance to run them.
    const live = signedStripeEvent(CONNECT_SECRET, { extra: { livemode: true } });
    fake.setPayment('stripe', `pi_${live.id}`, { status: 'succeeded' });
    expect((await send('stripe-connect', live)).status).toBe(200);
    await processed('stripe-connect', live.id);
    expect(ConnectHandlers.seen.map((seen) => seen.eventId)).toEqual([live.id]);
    expect(await countEffects(app, snapshot.id)).toBe(0);
  });

  it('by default takes the account’s own test-mode events but not connected accounts’', async () => {
    const connectedTest = signedStripeEvent(KEYLESS_SECRET, {
      extra: { livemode: false, account: CONNECTED },
    });
    const ownTest = signedStripeEvent(KEYLESS_SECRET, { extra: { livemode: false } });
    const connectedLive = signedStripeEvent(KEYLESS_SECRET, {
      extra: { livemode: true, account: CONNECTED },
    });

    for (const event of [connectedTest, ownTest, connectedLive]) {
      expect((await send('stripe-connect-keyless', event)).status).toBe(200);
    }
    await processed('stripe-connect-keyless', ownTest.id);
    await processed('stripe-connect-keyless', connectedLive.id);

    expect(await rowOf('stripe-connect-keyless', connectedTest.id)).toBeNull();
    expect(journal(connectedTest.id)[0]).toContain(
      `a test-mode event of connected account ${CONNECTED} at an endpoint for live events of connected accounts (the default)`,
    );
    expect(ConnectHandlers.seen.map(({ eventId, account }) => [eventId, account]).sort()).toEqual(
      [
        [ownTest.id, null],
        [connectedLive.id, CONNECTED],
      ].sort(),
    );
  });
});
