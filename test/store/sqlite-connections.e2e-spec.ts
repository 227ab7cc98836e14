import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { Body, Controller, HttpCode, Injectable, Post } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import {
  OnPaymentEvent,
  PaymentEvent,
  stripeEndpoint,
  WebhookContext,
  WebhooksModuleOptions,
} from 'nestjs-payment-webhooks';
import { Gate } from '../../lib/spec-support/gate';
import { post } from '../support/http';
import { SignedStripeEvent, signedStripeEvent } from '../support/stripe-event';
import {
  countEffects,
  eventually,
  HandlerControl,
  Platform,
  startTestApp,
  TestApp,
  TestEffect,
} from '../support/test-app';

const SECRET = 'whsec_sqlite_connections';

function signedEvent(): SignedStripeEvent {
  return signedStripeEvent(SECRET, { amount: 1200, currency: 'eur' });
}

function webhooks(extra: Partial<WebhooksModuleOptions> = {}): WebhooksModuleOptions {
  return {
    endpoints: [stripeEndpoint({ name: 'stripe', secret: SECRET })],
    dispatch: { pollIntervalMs: 50, retry: { baseDelayMs: 1000, maxDelayMs: 1000 } },
    ...extra,
  };
}

/** The notes whose insert the route below has sent. */
const notesSent = new Set<string>();

/** One of the app's own routes: a plain repository insert, outside any transaction. */
@Controller('notes')
class NotesController {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  @Post()
  @HttpCode(201)
  async add(@Body() body: { note: string }): Promise<{ saved: string }> {
    notesSent.add(body.note);
    await this.dataSource
      .getRepository(TestEffect)
      .insert({ eventId: body.note, handler: 'route', merchantRef: null });
    return { saved: body.note };
  }
}

function rowsOf(t: TestApp, table: string, eventId: string): Promise<{ n: number }[]> {
  const column = table === 'webhook_events' ? 'event_id' : '"eventId"';
  return t.dataSource.query(`SELECT count(*) AS n FROM ${table} WHERE ${column} = ?`, [eventId]);
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
      const handlerHeld = new Gate();
      try {
        const event = signedEvent();
        control.scripts.set(event.id, { until: handlerHeld.opened, nonRetryable: true });
        expect((await post(`${t.url}/webhooks/stripe`, event.body, event.headers)).status).toBe(
          200,
        );
        // The handler wrote its effect and waits inside its transaction, which will fail.
        await eventually(() => control.calls.some((call) => call.eventId === event.id));

        // The route's insert is sent while the handler's transaction is open; it waits for it.
        const note = `note_${event.id}`;
        const answered = post(`${t.url}/notes`, JSON.stringify({ note }));
        await eventually(() => notesSent.has(note));
        // NOTE: time for the insert to reach the connection, where a write that joined the
        // handler's transaction would be rolled back with it.
        await new Promise((resolve) => setTimeout(resolve, 100));
        handlerHeld.open();
        expect((await answered).status).toBe(201);

        await eventually(async () => (await statusOf(t, event.id)) === 'dead');
        expect(await countEffects(t, note)).toBe(1);
        expect(await countEffects(t, event.id)).toBe(0);
        expect(await ledgerRows(t, event.id)).toBe(0);
      } finally {
        handlerHeld.open();
        await t.close();
      }
    }, 30_000);
  },
);

describe('answers on SQLite while a handler holds its transaction', () => {
  it('stores and answers a delivery while the handler holds, then runs it once', async () => {
    const control = new HandlerControl();
    const t = await startTestApp({
      platform: 'express',
      database: 'sqlite',
      control,
      // NOTE: a delivery that waited for the handler's transaction would be answered 503 after this.
      webhooks: webhooks({ storeTimeoutMs: 10_000 }),
    });
    const handlerHeld = new Gate();
    try {
      const slow = signedEvent();
      control.scripts.set(slow.id, { until: handlerHeld.opened });
      expect((await post(`${t.url}/webhooks/stripe`, slow.body, slow.headers)).status).toBe(200);
      await eventually(() => control.calls.some((call) => call.eventId === slow.id));

      // Answered while the handler holds its transaction, until the test lets it go.
      const late = signedEvent();
      const answers = [
        await post(`${t.url}/webhooks/stripe`, late.body, late.headers),
        // A re-delivery while the first copy waits: a duplicate, one row.
        await post(`${t.url}/webhooks/stripe`, late.body, late.headers),
      ];
      expect(answers.map((answer) => answer.status)).toEqual([200, 200]);
      expect(control.calls).toHaveLength(1);
      handlerHeld.open();
      for (const event of [slow, late]) {
        await eventually(async () => (await statusOf(t, event.id)) === 'processed', 20_000);
        expect(await countEffects(t, event.id)).toBe(1);
      }
      const [row] = (await t.dataSource.query(
        'SELECT delivery_count FROM webhook_events WHERE event_id = ?',
        [late.id],
      )) as { delivery_count: number }[];
      expect(row.delivery_count).toBe(2);
      expect(control.calls.filter((call) => call.eventId === late.id)).toHaveLength(1);
    } finally {
      handlerHeld.open();
      await t.close();
    }
  }, 30_000);

  it('keeps the deliveries it could not write at once in the intake file, which can be set', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'pw-intake-'));
    const intake = join(directory, 'deliveries-waiting.sqlite');
    const control = new HandlerControl();
    const t = await startTestApp({
      platform: 'fastify',
      database: 'sqlite',
      control,
      webhooks: webhooks({ storage: { sqliteIntakePath: intake } }),
    });
    const handlerHeld = new Gate();
    try {
      const slow = signedEvent();
      control.scripts.set(slow.id, { until: handlerHeld.opened });
      await post(`${t.url}/webhooks/stripe`, slow.body, slow.headers);
      await eventually(() => control.calls.length === 1);
      const late = signedEvent();
      expect((await post(`${t.url}/webhooks/stripe`, late.body, late.headers)).status).toBe(200);
      // While the handler still holds the database, the answered delivery is in the intake.
      const file = new Database(intake, { readonly: true });
      try {
        expect(file.prepare('SELECT event_id FROM webhook_intake').all()).toEqual([
          { event_id: late.id },
        ]);
      } finally {
        file.close();
      }
      expect(existsSync(t.sqliteFile!.replace(/\.sqlite$/, '.webhooks.sqlite'))).toBe(false);
      handlerHeld.open();
      await eventually(async () => (await statusOf(t, late.id)) === 'processed', 20_000);
      expect(await rowsOf(t, 'webhook_events', late.id)).toEqual([{ n: 1 }]);
    } finally {
      handlerHeld.open();
      await t.close();
    }
  }, 30_000);
});

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
