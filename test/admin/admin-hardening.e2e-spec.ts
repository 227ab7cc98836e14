import { AddressInfo } from 'node:net';
import { Server } from 'node:http';
import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import type { NestExpressApplication } from '@nestjs/platform-express';
import express from 'express';
import { DataSource } from 'typeorm';
import { stripeEndpoint } from 'nestjs-payment-webhooks';
import { post } from '../support/http';
import { WebhookEventEntity } from '../support/internals';
import { startRouterApp } from '../support/router-app';
import { RecordingLogger } from '../support/recording-logger';
import { signedStripeEvent, SignedStripeEvent } from '../support/stripe-event';
import {
  Database,
  eventually,
  HandlerControl,
  Platform,
  startTestApp,
  statementsSent,
  TestApp,
} from '../support/test-app';

const SECRET = 'whsec_admin_hardening';
const TOKEN = 'let-me-in';
const MIB = 1024 * 1024;

const endpoints = [stripeEndpoint({ name: 'stripe', secret: SECRET, maxBodyBytes: 2 * MIB })];
const dispatch = { pollIntervalMs: 50, retry: { maxAttempts: 1, baseDelayMs: 10, maxDelayMs: 20 } };

@Injectable()
class AdminTokenGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const request = context.switchToHttp().getRequest<{ headers: Record<string, string> }>();
    return request.headers['x-admin-token'] === TOKEN;
  }
}

/** An app serving the admin routes, whichever adapter mounts them. */
interface AdminApp {
  /** Where the webhooks are delivered. */
  webhooks: string;
  /** Where the admin routes are mounted. */
  admin: string;
  dataSource: DataSource;
  control: HandlerControl;
  close(): Promise<void>;
}

async function nestApp(platform: Platform, database: Database): Promise<AdminApp> {
  const app = await startTestApp({
    platform,
    database,
    extras: { admin: { guards: [AdminTokenGuard], path: 'ops/webhooks' } },
    webhooks: { endpoints, dispatch },
    // NOTE: Express's JSON parser stops at 100 KB unless told otherwise (Fastify's at 1 MiB).
    configure: (nest) =>
      platform === 'express' &&
      (nest as NestExpressApplication).useBodyParser('json', { limit: '2mb' }),
  });
  return {
    webhooks: `${app.url}/webhooks/stripe`,
    admin: `${app.url}/ops/webhooks`,
    dataSource: app.dataSource,
    control: app.control,
    close: () => app.close(),
  };
}

async function routerApp(logger?: RecordingLogger): Promise<AdminApp & { server: Server }> {
  const t = await startRouterApp({
    database: 'sqlite',
    webhooks: { endpoints, dispatch, ...(logger ? { logger } : {}) },
  });
  const app = express();
  app.use(express.json());
  app.use(
    '/webhooks-admin',
    t.router.adminRouter({
      authorize: (request) => {
        if (request.headers['x-admin-token'] === 'throw') {
          throw new TypeError("Cannot read properties of undefined (reading 'user')");
        }
        return request.headers['x-admin-token'] === TOKEN;
      },
    }),
  );
  const server = await new Promise<Server>((resolve) => {
    const listening: Server = app.listen(0, '127.0.0.1', () => resolve(listening));
  });
  return {
    webhooks: `${t.url}/webhooks/stripe`,
    admin: `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks-admin`,
    dataSource: t.dataSource,
    control: t.control,
    server,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await t.close();
    },
  };
}

/** A Stripe event whose body carries `padding` characters of filler, signed by Stripe's SDK. */
function paddedEvent(padding: number): SignedStripeEvent {
  return signedStripeEvent(SECRET, { extra: { padding: 'x'.repeat(padding) } });
}

describe.each<[string, () => Promise<AdminApp>]>([
  ['the Nest module on Express and SQLite', () => nestApp('express', 'sqlite')],
  ['the Nest module on Fastify and PostgreSQL', () => nestApp('fastify', 'postgres')],
  ['the Express admin router', () => routerApp()],
])('admin routes of %s', (_name, start) => {
  let app: AdminApp;

  beforeAll(async () => {
    app = await start();
  });
  afterAll(() => app?.close());

  const call = (
    method: string,
    path: string,
    options: { body?: string; headers?: Record<string, string> } = {},
  ) =>
    fetch(`${app.admin}/${path}`, {
      method,
      headers: { 'x-admin-token': TOKEN, ...options.headers },
      body: options.body,
    });
  const json = { 'content-type': 'application/json' };

  async function deliver(event: SignedStripeEvent, settled: string): Promise<string> {
    expect((await post(app.webhooks, event.body, event.headers)).status).toBe(200);
    let id = '';
    await eventually(async () => {
      const row = await app.dataSource
        .getRepository(WebhookEventEntity)
        .findOneBy({ eventId: event.id });
      id = row?.id ?? '';
      return row?.status === settled;
    });
    return id;
  }

  async function deadEvent(): Promise<{ id: string; eventId: string }> {
    const event = signedStripeEvent(SECRET);
    app.control.scripts.set(event.id, { nonRetryable: true });
    const id = await deliver(event, 'dead');
    app.control.scripts.delete(event.id);
    return { id, eventId: event.id };
  }

  async function statusOf(id: string): Promise<string | undefined> {
    return (await app.dataSource.getRepository(WebhookEventEntity).findOneBy({ id }))?.status;
  }

  it('lists 50 events of 1 MiB as summaries under 100 KB, and shows one event with its body on demand, bounded', async () => {
    const big = Array.from({ length: 50 }, () => paddedEvent(MIB - 1024));
    const answers = await Promise.all(
      big.map((event) => post(app.webhooks, event.body, event.headers)),
    );
    expect(answers.map((answer) => `${answer.status} ${answer.body}`)).toEqual(
      big.map(() => '200 '),
    );
    const small = signedStripeEvent(SECRET);
    const smallId = await deliver(small, 'processed');
    await eventually(
      async () =>
        (await app.dataSource.getRepository(WebhookEventEntity).countBy({ status: 'processed' })) >=
        51,
    );

    const listed = await call('GET', 'events?limit=1000');
    const text = await listed.text();
    expect(listed.status).toBe(200);
    expect(Buffer.byteLength(text)).toBeLessThan(100_000);
    const rows = JSON.parse(text) as Record<string, unknown>[];
    expect(rows.length).toBeGreaterThanOrEqual(51);
    for (const row of rows) {
      expect(row).not.toHaveProperty('rawBody');
      expect(row).not.toHaveProperty('headers');
    }
    expect(rows[0]).toMatchObject({ eventId: expect.any(String), status: 'processed' });

    const bigRow = rows.find((row) => row.eventId === big[0].id)!;
    const shownBig = (await (
      await call('GET', `events/${String(bigRow.id)}?include=body`)
    ).json()) as {
      event: { rawBody: string; rawBodyLength: number; rawBodyTruncated: boolean };
    };
    expect(shownBig.event.rawBodyTruncated).toBe(true);
    expect(shownBig.event.rawBodyLength).toBe(big[0].body.length);
    expect(shownBig.event.rawBody).toBe(big[0].body.slice(0, 256 * 1024));

    const shownSmall = (await (await call('GET', `events/${smallId}?include=body`)).json()) as {
      event: { rawBody: string; rawBodyTruncated: boolean; headers: Record<string, string> };
    };
    expect(shownSmall.event.rawBody).toBe(small.body);
    expect(shownSmall.event.rawBodyTruncated).toBe(false);
    expect(shownSmall.event.headers).toBeDefined();
  });

  it('shows an event without its body and headers unless include=body asks for them, and refuses any other include with 400', async () => {
    const event = signedStripeEvent(SECRET);
    const id = await deliver(event, 'processed');

    const plain = await call('GET', `events/${id}`);
    expect(plain.status).toBe(200);
    const { event: summary, handlerRuns } = (await plain.json()) as {
      event: Record<string, unknown>;
      handlerRuns: unknown[];
    };
    expect(summary).toMatchObject({ id, eventId: event.id, status: 'processed' });
    expect(summary.bodySha256).toMatch(/^[0-9a-f]{64}$/);
    expect(handlerRuns).toHaveLength(1);
    for (const payload of ['rawBody', 'headers', 'rawBodyLength', 'rawBodyTruncated']) {
      expect(summary).not.toHaveProperty(payload);
    }

    const withBody = await call('GET', `events/${id}?include=body`);
    expect(withBody.status).toBe(200);
    expect(((await withBody.json()) as { event: Record<string, unknown> }).event).toMatchObject({
      id,
      bodySha256: summary.bodySha256,
      rawBody: event.body,
      rawBodyLength: event.body.length,
      rawBodyTruncated: false,
      headers: expect.objectContaining({ 'content-type': 'application/json' }),
    });

    for (const query of [
      'include=nonsense',
      'include=BODY',
      'include=',
      'include=body&include=body',
      'include=body,headers',
    ]) {
      const refused = await call('GET', `events/${id}?${query}`);
      expect({ query, status: refused.status }).toEqual({ query, status: 400 });
      expect(((await refused.json()) as { message: string }).message).toMatch(
        /^include must be "body", given once: GET events\/:id\?include=body adds the stored body/,
      );
    }
    const unknown = await call('GET', `events/${id}?body=1`);
    expect(unknown.status).toBe(400);
    expect(((await unknown.json()) as { message: string }).message).toBe(
      'unknown query parameter "body": this route takes include',
    );
  });

  it('reads no body or headers from the database for a list', async () => {
    const sent = await statementsSent({ dataSource: app.dataSource } as TestApp, async () => {
      expect((await call('GET', 'events?limit=10')).status).toBe(200);
    });
    const selects = sent.filter((sql) => /SELECT[\s\S]*FROM "webhook_events"/i.test(sql));
    expect(selects.length).toBeGreaterThan(0);
    for (const sql of selects) {
      expect(sql).not.toMatch(/raw_body|"headers"/);
    }
  });

  it('refuses a text/plain settle with 415 and leaves the event as it was', async () => {
    const { id } = await deadEvent();
    const settle = await call('POST', `events/${id}/settle`, {
      headers: { 'content-type': 'text/plain' },
      body: JSON.stringify({ status: 'ignored', reason: 'from a form' }),
    });
    expect(settle.status).toBe(415);
    expect(((await settle.json()) as { message: string }).message).toMatch(
      /must be sent with Content-Type: application\/json/,
    );
    expect(await statusOf(id)).toBe('dead');

    const bare = await call('POST', `events/${id}/redeliver`);
    expect(bare.status).toBe(415);
    expect(await statusOf(id)).toBe('dead');
  });

  it('refuses cross-site requests with 403 and replays nothing, and lets same-origin ones through', async () => {
    const { id } = await deadEvent();
    const form = await call('POST', 'replay?status=dead', {
      headers: { 'content-type': 'text/plain', origin: 'https://evil.example' },
      body: '{}',
    });
    expect(form.status).toBe(403);
    expect(((await form.json()) as { message: string }).message).toMatch(
      /must come from the same origin: Origin "https:\/\/evil.example" does not match/,
    );
    const fetched = await call('POST', `events/${id}/redeliver`, {
      headers: { ...json, 'sec-fetch-site': 'cross-site' },
      body: '{}',
    });
    expect(fetched.status).toBe(403);
    expect(((await fetched.json()) as { message: string }).message).toMatch(
      /Sec-Fetch-Site is "cross-site"/,
    );
    const sameSite = await call('POST', `events/${id}/settle`, {
      headers: { ...json, 'sec-fetch-site': 'same-site' },
      body: JSON.stringify({ status: 'ignored', reason: 'sibling site' }),
    });
    expect(sameSite.status).toBe(403);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await statusOf(id)).toBe('dead');

    const sameOrigin = await call('POST', `events/${id}/settle`, {
      headers: { ...json, origin: new URL(app.admin).origin },
      body: JSON.stringify({ status: 'dead', reason: 'checked with the bank' }),
    });
    expect(sameOrigin.status).toBe(200);
    const browser = await call('POST', `events/${id}/redeliver`, {
      headers: { ...json, 'sec-fetch-site': 'same-origin', origin: 'https://proxied.example' },
      body: '{}',
    });
    expect(browser.status).toBe(200);
  });

  it.each<[string, string, RegExp]>([
    [
      'a time before the year 0',
      'events?since=-271821-04-20T00:00:00Z',
      /since must be an age such as 30d, 12h or 15m .*, or an ISO 8601 time from 1970-01-01T00:00:00Z to 9999-12-31T23:59:59Z/,
    ],
    ['a time before 1970', 'events?since=1969-12-31T23:59:59Z', /since must be a time from 1970/],
    ['no calendar day', 'events?until=2026-02-30', /until must be an age .* or an ISO 8601 time/],
    ['a word', 'events?until=yesterday', /until must be an age .* or an ISO 8601 time/],
    [
      'since after until',
      'events?since=2026-02-01T00:00:00Z&until=2026-01-01T00:00:00Z',
      /since must be before until/,
    ],
    ['an unknown status', 'events?status=dead&status=bogus', /status must be one or more of/],
    ['an empty status', 'events?status=', /status must be one or more of pending, processing/],
    ['a zero limit', 'events?limit=0', /limit must be a whole number from 1 to 1000/],
    ['a limit too high', 'events?limit=1001', /limit must be a whole number from 1 to 1000/],
    ['a fractional limit', 'events?limit=2.5', /limit must be a whole number/],
    ['an exponent limit', 'events?limit=1e3', /limit must be a whole number/],
    ['an unknown key', 'events?statuss=dead', /unknown query parameter "statuss"/],
    ['a repeated endpoint', 'events?endpoint=a&endpoint=b', /endpoint must be given once/],
    ['an empty endpoint', 'events?endpoint=', /endpoint must be given once, as a non-empty/],
    [
      'a nested status',
      'events?status[a]=dead',
      /status must be one or more of|unknown query parameter "status\[a\]"/,
    ],
  ])('answers %s with 400 stating the rule', async (_case, path, rule) => {
    const response = await call('GET', path);
    expect(response.status).toBe(400);
    const body = (await response.json()) as { statusCode: number; message: string };
    expect(body.statusCode).toBe(400);
    expect(body.message).toMatch(rule);
  });

  it('refuses a replay filter that breaks a rule with 400, and replays nothing', async () => {
    const { id } = await deadEvent();
    for (const [path, rule] of [
      ['replay?status=pending', /status must be one or more of processed, ignored, dead, retrying/],
      ['replay?limit=5', /unknown query parameter "limit"/],
      ['replay?endpont=stripe', /unknown query parameter "endpont"/],
      ['replay?since=-271821-04-20T00:00:00Z', /since must be an age .* or an ISO 8601 time/],
    ] as const) {
      const response = await call('POST', path, { headers: json, body: '{}' });
      expect(response.status).toBe(400);
      expect(((await response.json()) as { message: string }).message).toMatch(rule);
    }
    expect(await statusOf(id)).toBe('dead');
  });

  it('takes several statuses repeated or comma-separated, alike', async () => {
    const { eventId } = await deadEvent();
    const repeated = await call('GET', 'events?status=dead&status=processed&limit=1000');
    const commas = await call('GET', 'events?status=dead,processed&limit=1000');
    expect([repeated.status, commas.status]).toEqual([200, 200]);
    const ids = async (response: Response) =>
      ((await response.json()) as { eventId: string; status: string }[]).map(
        (row) => `${row.eventId} ${row.status}`,
      );
    const fromRepeated = await ids(repeated);
    expect(fromRepeated).toEqual(await ids(commas));
    expect(fromRepeated).toContain(`${eventId} dead`);
    expect(fromRepeated.some((row) => row.endsWith(' processed'))).toBe(true);
  });
});

describe('the Express admin router when authorize throws', () => {
  const logger = new RecordingLogger();
  let app: AdminApp;

  beforeAll(async () => {
    app = await routerApp(logger);
  });
  afterAll(() => app?.close());

  it('answers 403 without the stack, and logs the error by name and message, no secret', async () => {
    const response = await fetch(`${app.admin}/events`, {
      headers: { 'x-admin-token': 'throw', cookie: 'sid=s3cr3t-session-cookie' },
    });
    expect(response.status).toBe(403);
    const body = await response.text();
    expect(body).not.toMatch(/TypeError|at .*\.ts/);
    const lines = logger.lines.filter((line) => line.text.includes('authorize() threw'));
    expect(lines).toHaveLength(1);
    expect(lines[0].level).toBe('warn');
    expect(lines[0].text).toContain(
      "TypeError: Cannot read properties of undefined (reading 'user')",
    );
    expect(lines[0].text).not.toMatch(/s3cr3t|sid=|x-admin-token|\bthrow\b/);
  });
});
