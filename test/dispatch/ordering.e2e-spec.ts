import { Injectable } from '@nestjs/common';
import {
  OnPaymentEvent,
  PaymentEvent,
  stripeEndpoint,
  WebhookDispatcher,
} from 'nestjs-payment-webhooks';
import { post } from '../support/http';
import { WebhookEventEntity } from '../support/internals';
import { signedStripeEvent } from '../support/stripe-event';
import { Database, eventually, startTestApp, TestApp } from '../support/test-app';

const SECRET = 'whsec_ordering_secret';

interface Run {
  eventId: string;
  start: number;
  end: number;
}

/** Records when each event's handler ran; each run takes a while so overlaps would show. */
@Injectable()
class TimedHandlers {
  static runs: Run[] = [];

  @OnPaymentEvent('*')
  async onAny(event: PaymentEvent): Promise<void> {
    const start = Date.now();
    await new Promise((resolve) => setTimeout(resolve, 60));
    TimedHandlers.runs.push({ eventId: event.eventId, start, end: Date.now() });
  }
}

let sequence = 0;
function paymentEvent(paymentId: string, type: string, created: number) {
  return signedStripeEvent(SECRET, { paymentId, type, created, amount: 100, currency: 'eur' });
}

function overlaps(runs: Run[]): boolean {
  return runs.some((a, i) => runs.some((b, j) => i !== j && a.start < b.end && b.start < a.end));
}

describe.each<Database>(['sqlite', 'postgres'])('orderPerPayment on %s', (database) => {
  async function runScenario(orderPerPayment: boolean): Promise<{ app: TestApp; ids: string[] }> {
    TimedHandlers.runs = [];
    const app = await startTestApp({
      platform: 'express',
      database,
      handlers: [TimedHandlers],
      webhooks: {
        endpoints: [stripeEndpoint({ name: 'stripe', secret: SECRET, orderPerPayment })],
        dispatch: { enabled: false, concurrency: 4, pollIntervalMs: 20 },
      },
    });
    const base = Math.floor(Date.now() / 1000);
    const paymentId = `pi_order_${sequence++}`;
    // NOTE: sent newest first, so arrival order is the reverse of the provider's order.
    const events = [
      paymentEvent(paymentId, 'payment_intent.canceled', base + 3),
      paymentEvent(paymentId, 'payment_intent.succeeded', base + 2),
      paymentEvent(paymentId, 'payment_intent.processing', base + 1),
    ];
    for (const event of events) {
      expect((await post(`${app.url}/webhooks/stripe`, event.body, event.headers)).status).toBe(
        200,
      );
    }
    app.app.get(WebhookDispatcher).start();
    await eventually(async () => {
      const rows = await app.dataSource.getRepository(WebhookEventEntity).find();
      return rows.length === 3 && rows.every((row) => row.status === 'processed');
    });
    return { app, ids: events.map((event) => event.id).reverse() };
  }

  it('runs one payment’s events one at a time in the order they happened', async () => {
    const { app, ids } = await runScenario(true);
    try {
      const runs = [...TimedHandlers.runs].sort((a, b) => a.start - b.start);
      expect(runs.map((run) => run.eventId)).toEqual(ids);
      expect(overlaps(runs)).toBe(false);
    } finally {
      await app.close();
    }
  });

  it('without the option runs them side by side or in arrival order (what the option prevents)', async () => {
    const { app, ids } = await runScenario(false);
    try {
      const runs = [...TimedHandlers.runs].sort((a, b) => a.start - b.start);
      expect(runs).toHaveLength(3);
      // NOTE: SQLite runs handler transactions one at a time, so there it shows as arrival order.
      const inProviderOrder = runs.map((run) => run.eventId).join() === ids.join();
      expect(overlaps(runs) || !inProviderOrder).toBe(true);
    } finally {
      await app.close();
    }
  });
});
