import { readFileSync } from 'node:fs';
import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Injectable } from '@nestjs/common';
import {
  OnPaymentEvent,
  PaymentEvent,
  stripeEndpoint,
  WebhookAdmin,
  WebhookContext,
} from 'nestjs-payment-webhooks';
import { splitFences } from '../../scripts/docs-support';
import { post } from '../support/http';
import { signedStripeEvent } from '../support/stripe-event';
import { Database, eventually, startTestApp, TestApp } from '../support/test-app';
import { EmailOutbox, EmailOutboxSender, MailApi, OrderReceipts } from './email-outbox';
import { FulfilmentApi, OrderFulfilment } from './order-fulfilment';

/**
 * The two ways docs/handlers.md gives to make a call outside the handler's transaction once,
 * though the handler runs again: the call keyed with `ctx.idempotencyKey`, and an outbox row
 * written through `ctx.manager` that a sender sends. The handlers are the documented ones
 * (order-fulfilment.ts and email-outbox.ts are the page's examples, as the first test checks),
 * each run once more after a first run that did its work and then failed before its commit.
 */

const SECRET = 'whsec_outside_calls';
const endpoints = [stripeEndpoint({ name: 'stripe', secret: SECRET })];
const dispatch = { pollIntervalMs: 50, retry: { maxAttempts: 3, baseDelayMs: 10, maxDelayMs: 20 } };
/** How the first run of each handler ends: as a killed process's run, without its commit. */
const FAILED = 'the run failed after its work, before its commit';

/**
 * A local HTTP API that counts what it does. With `honoursKeys`, it does as Stripe does with an
 * `Idempotency-Key`: the first request with a key acts, a later one with the same key and body
 * gets the first answer again (`Idempotent-Replayed: true`) and acts not, one with another body
 * is refused with 400. A request without a key always acts.
 */
class FakeApi {
  /** The `Idempotency-Key` of every request, `''` when it had none. */
  readonly keys: string[] = [];
  /** The bodies of the requests that acted. */
  readonly effects: unknown[] = [];
  private readonly firstAnswers = new Map<string, { body: string; answer: string }>();
  private server!: Server;

  private constructor(private readonly honoursKeys: boolean) {}

  static async start(honoursKeys: boolean): Promise<FakeApi> {
    const api = new FakeApi(honoursKeys);
    api.server = createServer((request, response) => {
      let body = '';
      request.setEncoding('utf8');
      request.on('data', (chunk: string) => (body += chunk));
      request.on('end', () => {
        const [status, answer, replayed] = api.answer(request.headers['idempotency-key'], body);
        response.writeHead(status, {
          'content-type': 'application/json',
          ...(replayed ? { 'idempotent-replayed': 'true' } : {}),
        });
        response.end(answer);
      });
    });
    await new Promise<void>((resolve) => api.server.listen(0, '127.0.0.1', resolve));
    return api;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private answer(header: string | string[] | undefined, body: string): [number, string, boolean] {
    const key = typeof header === 'string' ? header : '';
    this.keys.push(key);
    const first = this.honoursKeys && key !== '' ? this.firstAnswers.get(key) : undefined;
    if (first && first.body !== body) {
      return [400, JSON.stringify({ error: 'this key was sent before with another body' }), false];
    }
    if (first) {
      return [200, first.answer, true];
    }
    this.effects.push(JSON.parse(body));
    const answer = JSON.stringify({ id: `obj_${this.effects.length}` });
    if (this.honoursKeys && key !== '') {
      this.firstAnswers.set(key, { body, answer });
    }
    return [200, answer, false];
  }
}

/** The documented handler, whose first run fails after its call. */
@Injectable()
class OrderFulfilmentDyingOnce extends OrderFulfilment {
  @OnPaymentEvent('payment.succeeded')
  override async ship(event: PaymentEvent, ctx: WebhookContext): Promise<void> {
    await super.ship(event, ctx);
    if (ctx.attempt === 1) {
      throw new Error(FAILED);
    }
  }
}

/** The documented handler, whose first run fails after its insert. */
@Injectable()
class OrderReceiptsDyingOnce extends OrderReceipts {
  @OnPaymentEvent('payment.succeeded')
  override async queueReceipt(event: PaymentEvent, ctx: WebhookContext): Promise<void> {
    await super.queueReceipt(event, ctx);
    if (ctx.attempt === 1) {
      throw new Error(FAILED);
    }
  }
}

/** The `ts` block of docs/handlers.md whose first line is `firstLine`. */
function handlersPageExample(firstLine: string): string | undefined {
  const page = readFileSync(join(__dirname, '..', '..', 'docs', 'handlers.md'), 'utf8');
  return splitFences(page)
    .blocks.find((block) => block.info === 'ts' && block.lines[0] === firstLine)
    ?.lines.join('\n');
}

describe('the examples of docs/handlers.md for calls outside the transaction', () => {
  it.each(['order-fulfilment.ts', 'email-outbox.ts'])('%s is the page’s example', (file) => {
    const text = readFileSync(join(__dirname, file), 'utf8');
    expect(handlersPageExample(text.split('\n')[0])).toBe(text.trimEnd());
  });
});

describe.each<Database>(['sqlite', 'postgres'])(
  'a call outside the transaction on %s',
  (database) => {
    let app: TestApp | undefined;
    let api: FakeApi | undefined;

    afterEach(async () => {
      await app?.close();
      await api?.close();
      app = undefined;
      api = undefined;
    });

    /** Delivers a paid order and waits for its handler to succeed; its runs and failed attempts. */
    async function paidOrder(orderId: string) {
      const event = signedStripeEvent(SECRET, { orderId, amount: 4200, currency: 'eur' });
      expect((await post(`${app!.url}/webhooks/stripe`, event.body, event.headers)).status).toBe(
        200,
      );
      const admin = app!.app.get(WebhookAdmin);
      let id = '';
      await eventually(async () => {
        const [stored] = await admin.list({ eventId: event.id });
        id = stored?.id ?? '';
        return stored?.status === 'processed';
      });
      const { handlerRuns, history } = (await admin.show(id))!;
      return {
        id,
        succeededOnAttempts: handlerRuns.map((run) => run.attempt),
        failedAttempts: history.flatMap((entry) =>
          entry.kind === 'attempt' ? [`${entry.attempt}: ${entry.error?.split('\n')[0]}`] : [],
        ),
      };
    }

    it('keyed with ctx.idempotencyKey: the handler calls twice, the service ships once', async () => {
      api = await FakeApi.start(true);
      app = await startTestApp({
        platform: 'express',
        database,
        webhooks: { endpoints, dispatch },
        handlers: [OrderFulfilmentDyingOnce],
        providers: [{ provide: FulfilmentApi, useValue: new FulfilmentApi(api.url) }],
      });

      const order = await paidOrder('order-ship-1');

      expect(order.failedAttempts).toEqual([`1: Error: ${FAILED}`]);
      expect(order.succeededOnAttempts).toEqual([2]);
      expect(api.keys).toHaveLength(2);
      expect(api.keys[1]).toBe(api.keys[0]);
      expect(api.keys[0]).toMatch(/^whk_[0-9a-f]{40}$/);
      expect(api.effects).toEqual([{ order: 'order-ship-1', amount: 4200 }]);

      // What the key saves: the same call without it acts each time.
      for (let call = 0; call < 2; call += 1) {
        await fetch(`${api.url}/v1/shipments`, {
          method: 'POST',
          body: JSON.stringify({ order: 'order-ship-1', amount: 4200 }),
        });
      }
      expect(api.effects).toHaveLength(3);
    });

    it('queued in an outbox through ctx.manager: one row after the run that failed, sent once', async () => {
      api = await FakeApi.start(false);
      app = await startTestApp({
        platform: 'express',
        database,
        webhooks: { endpoints, dispatch },
        entities: [EmailOutbox],
        handlers: [OrderReceiptsDyingOnce],
        providers: [EmailOutboxSender, { provide: MailApi, useValue: new MailApi(api.url) }],
      });
      await app.dataSource.query(
        database === 'postgres'
          ? 'CREATE TABLE email_outbox (id serial PRIMARY KEY, "eventId" varchar(36) NOT NULL, ' +
              'kind varchar(32) NOT NULL, "orderId" varchar(255), sent boolean NOT NULL DEFAULT false, ' +
              'UNIQUE ("eventId", kind))'
          : 'CREATE TABLE email_outbox (id integer PRIMARY KEY AUTOINCREMENT, "eventId" varchar(36) ' +
              'NOT NULL, kind varchar(32) NOT NULL, "orderId" varchar(255), sent boolean NOT NULL ' +
              'DEFAULT 0, UNIQUE ("eventId", kind))',
      );
      const outbox = app.dataSource.getRepository(EmailOutbox);

      const order = await paidOrder('order-mail-1');

      // Both runs inserted the row; the first run's insert went with its transaction.
      expect(order.failedAttempts).toEqual([`1: Error: ${FAILED}`]);
      expect(order.succeededOnAttempts).toEqual([2]);
      expect(await outbox.find()).toEqual([
        {
          id: expect.any(Number),
          eventId: order.id,
          kind: 'receipt',
          orderId: 'order-mail-1',
          sent: false,
        },
      ]);
      expect(api.effects).toEqual([]);

      const sender = app.app.get(EmailOutboxSender);
      expect(await sender.sendQueued()).toBe(1);
      expect(await sender.sendQueued()).toBe(0);
      expect(api.effects).toEqual([{ template: 'receipt', order: 'order-mail-1' }]);
      expect(await outbox.countBy({ sent: true })).toBe(1);
    });
  },
);
