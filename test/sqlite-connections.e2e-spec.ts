import { Body, Controller, HttpCode, Injectable, Post } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import Stripe from 'stripe';
import { DataSource } from 'typeorm';
import {
  OnPaymentEvent,
  PaymentEvent,
  stripeEndpoint,
  WebhookContext,
  WebhooksModuleOptions,
} from 'nestjs-payment-webhooks';
import { post } from './support/http';
import {
  countEffects,
  eventually,
  HandlerControl,
  Platform,
  startTestApp,
  TestApp,
  TestEffect,
} from './support/test-app';

const SECRET = 'whsec_sqlite_connections';

let sequence = 0;
function signedEvent(): { id: string; body: string; headers: Record<string, string> } {
  const id = `evt_conn_${process.pid}_${sequence++}`;
  const body = JSON.stringify({
    id,
    type: 'payment_intent.succeeded',
    created: Math.floor(Date.now() / 1000),
    data: { object: { id: `pi_${id}`, amount: 1200, currency: 'eur', metadata: {} } },
  });
  const headers = {
    'stripe-signature': Stripe.webhooks.generateTestHeaderString({ payload: body, secret: SECRET }),
  };
  return { id, body, headers };
}

function webhooks(extra: Partial<WebhooksModuleOptions> = {}): WebhooksModuleOptions {
  return {
    endpoints: [stripeEndpoint({ name: 'stripe', secret: SECRET })],
    dispatch: { pollIntervalMs: 50, retry: { baseDelayMs: 1000, maxDelayMs: 1000 } },
    ...extra,
  };
}

/** One of the app's own routes: a plain repository insert, outside any transaction. */
@Controller('notes')
class NotesController {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  @Post()
  @HttpCode(201)
  async add(@Body() body: { note: string }): Promise<{ saved: string }> {
    await this.dataSource
      .getRepository(TestEffect)
      .insert({ eventId: body.note, handler: 'route', merchantRef: null });
    return { saved: body.note };
  }
}

async function statusOf(t: TestApp, eventId: string): Promise<string | undefined> {
  const rows = (await t.dataSource.query('SELECT status FROM webhook_events WHERE event_id = ?', [
    eventId,
  ])) as { status: string }[];
  return rows[0]?.status;
}

async function ledgerRows(t: TestApp, eventId: string): Promise<number> {
  const [{ n }] = (await t.dataSource.query(
    'SELECT count(*) AS n FROM webhook_handler_runs r JOIN webhook_events e ON e.id = r.event_id ' +
      'WHERE e.event_id = ?',
    [eventId],
  )) as { n: number }[];
  return n;
}

describe.each<Platform>(['express', 'fastify'])(
  'the app’s own writes on SQLite (%s)',
  (platform) => {
    it('keeps a route’s insert made while a failing handler’s transaction is open', async () => {
      const control = new HandlerControl();
      const t = await startTestApp({
        platform,
        database: 'sqlite',
        control,
        webhooks: webhooks(),
        controllers: [NotesController],
      });
      try {
        const event = signedEvent();
        control.scripts.set(event.id, { delayMs: 1500, nonRetryable: true });
        expect((await post(`${t.url}/webhooks/stripe`, event.body, event.headers)).status).toBe(
          200,
        );
        // The handler wrote its effect and waits inside its transaction, which will fail.
        await eventually(() => control.calls.some((call) => call.eventId === event.id));

        const note = `note_${event.id}`;
        const answer = await post(`${t.url}/notes`, JSON.stringify({ note }));
        expect(answer.status).toBe(201);

        await eventually(async () => (await statusOf(t, event.id)) === 'dead');
        expect(await countEffects(t, note)).toBe(1);
        expect(await countEffects(t, event.id)).toBe(0);
        expect(await ledgerRows(t, event.id)).toBe(0);
      } finally {
        await t.close();
      }
    }, 30_000);
  },
);

/** Writes its effect through ctx.manager, then fails its first attempt. */
@Injectable()
class FailsOnceHandler {
  constructor(private readonly control: HandlerControl) {}

  @OnPaymentEvent('payment.succeeded')
  async apply(event: PaymentEvent, ctx: WebhookContext): Promise<void> {
    this.control.calls.push({ eventId: event.eventId, attempt: ctx.attempt, handler: 'once' });
    await ctx.manager.insert(TestEffect, { eventId: event.eventId, handler: 'once' });
    if (ctx.attempt === 1) {
      throw new Error('first attempt fails after its write');
    }
  }
}

/** Writes through the app's own data source from inside the handler. */
@Injectable()
class OwnRepositoryHandler {
  constructor(
    private readonly control: HandlerControl,
    @InjectDataSource() private readonly dataSource: DataSource,
  ) {}

  @OnPaymentEvent('payment.succeeded')
  async apply(event: PaymentEvent): Promise<void> {
    this.control.calls.push({ eventId: event.eventId, attempt: 0, handler: 'own' });
    await this.dataSource
      .getRepository(TestEffect)
      .insert({ eventId: event.eventId, handler: 'own' });
  }
}

describe('handler transactions on the package’s own SQLite connection', () => {
  it('commits a handler’s writes with its ledger row, and rolls both back together', async () => {
    const control = new HandlerControl();
    const t = await startTestApp({
      platform: 'express',
      database: 'sqlite',
      control,
      webhooks: webhooks(),
      handlers: [FailsOnceHandler],
    });
    try {
      const event = signedEvent();
      await post(`${t.url}/webhooks/stripe`, event.body, event.headers);
      await eventually(async () => (await statusOf(t, event.id)) === 'retrying');
      expect(await countEffects(t, event.id)).toBe(0);
      expect(await ledgerRows(t, event.id)).toBe(0);

      await eventually(async () => (await statusOf(t, event.id)) === 'processed');
      expect(await countEffects(t, event.id)).toBe(1);
      expect(await ledgerRows(t, event.id)).toBe(1);
    } finally {
      await t.close();
    }
  }, 30_000);

  it('fails a handler’s write through the app’s own data source, naming ctx.manager', async () => {
    const control = new HandlerControl();
    const t = await startTestApp({
      platform: 'express',
      database: 'sqlite',
      control,
      webhooks: webhooks(),
      handlers: [OwnRepositoryHandler],
    });
    try {
      const event = signedEvent();
      await post(`${t.url}/webhooks/stripe`, event.body, event.headers);
      await eventually(async () => (await statusOf(t, event.id)) === 'retrying');
      const [row] = (await t.dataSource.query(
        'SELECT last_error FROM webhook_events WHERE event_id = ?',
        [event.id],
      )) as { last_error: string }[];
      expect(row.last_error).toMatch(/ctx\.manager/);
      expect(await countEffects(t, event.id)).toBe(0);
    } finally {
      await t.close();
    }
  }, 30_000);
});
