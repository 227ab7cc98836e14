import 'reflect-metadata';
import { createHash, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  BadRequestException,
  Body,
  Controller,
  Header,
  Headers,
  INestApplication,
  Module,
  Param,
  Post,
  Res,
} from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { NestExpressApplication } from '@nestjs/platform-express';
import { TypeOrmModule } from '@nestjs/typeorm';
import {
  stripeEndpoint,
  WebhooksModule,
  WebhooksModuleOptions,
  webhooksMigrations,
  WebhookTransactions,
} from 'nestjs-payment-webhooks';
import {
  Idempotent,
  IdempotencyKeyInProgressError,
  IdempotencyModule,
  IdempotencyStore,
  idempotencyMigrations,
} from 'nestjs-payment-webhooks/idempotency';
import { AppModule, ShopDatabase } from '../../sample-app/src/app.module';
import { DEVELOPMENT_SECRETS } from '../../sample-app/src/config';
import { configureApp } from '../../sample-app/src/configure-app';
import { Order } from '../../sample-app/src/orders/order.entity';
import { SandboxRefundsGateway } from '../../sample-app/src/orders/sandbox-refunds.gateway';
import { Gate } from '../../lib/spec-support/gate';
import { createTestDatabase, TestDatabase } from '../support/postgres';
import { signedStripeEvent } from '../support/stripe-event';
import {
  Database,
  eventually,
  Platform,
  sameDatabaseAs,
  startTestApp,
  TestApp,
} from '../support/test-app';

/**
 * End-to-end tests of `@Idempotent()` and `IdempotentCall` over real HTTP: a test API on
 * Express and Fastify, SQLite and PostgreSQL, two instances on one PostgreSQL, and the sample
 * shop's orders and refunds. Handler runs are counted by the handlers themselves.
 */

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const sha256 = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');

/** A response as the client received it: status, headers and the exact body bytes. */
interface Received {
  status: number;
  headers: Headers;
  bytes: Buffer;
  text: string;
}

async function send(
  url: string,
  body: string,
  key?: string,
  headers: Record<string, string> = {},
): Promise<Received> {
  const response = await fetch(url, {
    method: 'POST',
    body,
    headers: {
      'content-type': 'application/json',
      ...(key === undefined ? {} : { 'idempotency-key': key }),
      ...headers,
    },
  });
  const bytes = Buffer.from(await response.arrayBuffer());
  return { status: response.status, headers: response.headers, bytes, text: bytes.toString() };
}

/** What the test handlers did, by Idempotency-Key (or `none`). */
class Ledger {
  private readonly runs = new Map<string, number>();
  /** Unhandled errors the payments handler throws before it succeeds. */
  failuresLeft = 0;
  /** Times the busy handler reports that an outgoing call is still running. */
  busyLeft = 0;
  /** The slow handler waits for its opening before it answers. */
  gate?: Gate;

  record(key: string | undefined): number {
    const label = key ?? 'none';
    const count = (this.runs.get(label) ?? 0) + 1;
    this.runs.set(label, count);
    return count;
  }

  runsFor(key: string): number {
    return this.runs.get(key) ?? 0;
  }
}

interface PaymentRequest {
  amount: number;
  currency?: string;
  delayMs?: number;
}

/** The platform response as a handler sees it with `passthrough`: Express or Fastify. */
interface PassthroughResponse {
  raw?: unknown;
  header?(name: string, value: string): unknown;
  setHeader?(name: string, value: string): unknown;
}

function setLocation(response: PassthroughResponse, location: string): void {
  if (response.raw && response.header) {
    response.header('Location', location);
  } else {
    response.setHeader?.('Location', location);
  }
}

let created = 0;

@Controller()
class PaymentsApiController {
  constructor(private readonly ledger: Ledger) {}

  @Post('payments')
  @Idempotent({ scope: 'pay' })
  async create(
    @Body() body: PaymentRequest,
    @Headers('idempotency-key') key: string | undefined,
    @Res({ passthrough: true }) response: PassthroughResponse,
  ) {
    this.ledger.record(key);
    if (body.delayMs) {
      await sleep(body.delayMs);
    }
    if (this.ledger.failuresLeft > 0) {
      this.ledger.failuresLeft -= 1;
      throw new Error('lost the database connection');
    }
    if (body.amount < 100) {
      throw new BadRequestException('amount must be at least 100 minor units');
    }
    const id = `pay_${++created}_${randomUUID().slice(0, 8)}`;
    setLocation(response, `/payments/${id}`);
    return {
      id,
      amount: body.amount,
      currency: body.currency ?? 'EUR',
      memo: 'Zahlung für Bestellung – ✓ 支払い',
      createdAt: new Date().toISOString(),
    };
  }

  @Post('payments/:id/capture')
  @Idempotent({ scope: 'pay' })
  capture(@Param('id') id: string, @Headers('idempotency-key') key: string | undefined) {
    this.ledger.record(key);
    return { id, captured: true };
  }

  @Post('refunds')
  @Idempotent({ scope: 'refund' })
  refund(@Body() body: PaymentRequest, @Headers('idempotency-key') key: string | undefined) {
    this.ledger.record(key);
    return { refund: `re_${++created}`, amount: body.amount };
  }

  @Post('required')
  @Idempotent({ scope: 'required', required: true })
  required(@Headers('idempotency-key') key: string | undefined) {
    this.ledger.record(`required:${key ?? 'none'}`);
    return { ok: ++created };
  }

  @Post('tenants')
  @Idempotent<{ headers: Record<string, string | string[] | undefined> }>({
    scope: 'tenant',
    principal: (request) => {
      const account = request.headers['x-account'];
      return typeof account === 'string' ? account : undefined;
    },
  })
  tenant(
    @Headers('idempotency-key') key: string | undefined,
    @Headers('x-account') account: string,
  ) {
    this.ledger.record(`${account}:${key}`);
    return { account, payment: ++created };
  }

  @Post('slow')
  @Idempotent({ scope: 'slow', leaseMs: 1000 })
  async slow(@Headers('idempotency-key') key: string | undefined) {
    this.ledger.record(key);
    await this.ledger.gate?.opened;
    return { done: ++created };
  }

  @Post('receipt')
  @Header('Content-Type', 'text/plain; charset=utf-8')
  @Idempotent({ scope: 'receipt' })
  receipt(@Headers('idempotency-key') key: string | undefined): string {
    this.ledger.record(key);
    return `Receipt #${++created}\nTotal: 19,99 €\n`;
  }

  @Post('busy')
  @Idempotent({ scope: 'busy' })
  busy(@Headers('idempotency-key') key: string | undefined) {
    this.ledger.record(key);
    if (this.ledger.busyLeft > 0) {
      this.ledger.busyLeft -= 1;
      throw new IdempotencyKeyInProgressError('refund_in_flight', 2500);
    }
    return { done: ++created };
  }
}

const WEBHOOKS: WebhooksModuleOptions = {
  endpoints: [stripeEndpoint({ name: 'stripe', secret: 'whsec_idempotency_e2e' })],
  dispatch: { enabled: false },
};

function startApi(
  platform: Platform,
  database: Database,
  ledger: Ledger,
  reuse: Partial<Pick<TestApp, 'databaseUrl' | 'sqliteFile'>> = {},
): Promise<TestApp> {
  return startTestApp({
    platform,
    database,
    webhooks: WEBHOOKS,
    handlers: [],
    controllers: [PaymentsApiController],
    providers: [{ provide: Ledger, useValue: ledger }],
    idempotency: true,
    ...reuse,
  });
}

/** A timestamp as the test database stores it. */
function dbDate(database: Database, value: Date): Date | string {
  return database === 'postgres' ? value : value.toISOString().replace('T', ' ').replace('Z', '');
}

function placeholder(database: Database, index: number): string {
  return database === 'postgres' ? `$${index}` : '?';
}

describe.each<[Platform, Database]>([
  ['express', 'sqlite'],
  ['express', 'postgres'],
  ['fastify', 'sqlite'],
  ['fastify', 'postgres'],
])('@Idempotent over %s on %s', (platform, database) => {
  const ledger = new Ledger();
  let api: TestApp;
  const url = (path: string) => `${api.url}/${path}`;

  beforeAll(async () => {
    api = await startApi(platform, database, ledger);
  });
  afterAll(async () => {
    await api?.close();
  });

  const keyRows = async (key: string) =>
    (await api.app
      .get(WebhookTransactions)
      .run((manager) =>
        manager.query(
          `SELECT state, scope, principal FROM idempotency_keys WHERE idempotency_key = ${placeholder(database, 1)}`,
          [key],
        ),
      )) as { state: string; scope: string; principal: string }[];

  /** When the key's lease ends, as a number comparable with another read of it. */
  const lockedUntil = async (key: string) => {
    const [row] = (await api.app
      .get(WebhookTransactions)
      .run((manager) =>
        manager.query(
          `SELECT locked_until FROM idempotency_keys WHERE idempotency_key = ${placeholder(database, 1)}`,
          [key],
        ),
      )) as { locked_until: Date | string }[];
    return new Date(row.locked_until).getTime();
  };

  it('runs the handler once for 20 concurrent identical requests; the rest get 409 or the replayed 201', async () => {
    const key = randomUUID();
    const body = JSON.stringify({ amount: 1999, currency: 'EUR', delayMs: 200 });
    const responses = await Promise.all(
      Array.from({ length: 20 }, () => send(url('payments'), body, key)),
    );
    expect(ledger.runsFor(key)).toBe(1);
    const createdResponses = responses.filter((r) => r.status === 201);
    const conflicts = responses.filter((r) => r.status === 409);
    expect(createdResponses.length + conflicts.length).toBe(20);
    expect(createdResponses.length).toBeGreaterThanOrEqual(1);
    for (const response of createdResponses) {
      expect(response.bytes.equals(createdResponses[0].bytes)).toBe(true);
    }
    for (const conflict of conflicts) {
      expect(conflict.headers.get('retry-after')).toBe('1');
      expect(JSON.parse(conflict.text)).toMatchObject({ statusCode: 409 });
    }
    const later = await send(url('payments'), body, key);
    expect(later.status).toBe(201);
    expect(later.headers.get('idempotent-replayed')).toBe('true');
    expect(later.bytes.equals(createdResponses[0].bytes)).toBe(true);
    expect(ledger.runsFor(key)).toBe(1);
    expect(await keyRows(key)).toEqual([{ state: 'completed', scope: 'pay', principal: '' }]);
  });

  it('replays the stored status, Content-Type, Location and body byte for byte', async () => {
    const key = randomUUID();
    const body = JSON.stringify({ amount: 4200, currency: 'EUR' });
    const first = await send(url('payments'), body, key);
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const payment = JSON.parse(first.text) as { id: string; memo: string };
    expect(payment.memo).toBe('Zahlung für Bestellung – ✓ 支払い');
    expect(first.headers.get('location')).toBe(`/payments/${payment.id}`);

    await sleep(5);
    const replay = await send(url('payments'), body, key);
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.bytes.equals(first.bytes)).toBe(true);
    expect(replay.headers.get('content-type')).toBe(first.headers.get('content-type'));
    expect(replay.headers.get('location')).toBe(first.headers.get('location'));
    expect(ledger.runsFor(key)).toBe(1);
  });

  it('replays a text body with its own content type', async () => {
    const key = randomUUID();
    const first = await send(url('receipt'), '{}', key);
    expect(first.status).toBe(201);
    expect(first.text).toMatch(/^Receipt #\d+\nTotal: 19,99 €\n$/);
    const replay = await send(url('receipt'), '{}', key);
    expect(replay.status).toBe(201);
    expect(replay.bytes.equals(first.bytes)).toBe(true);
    expect(replay.headers.get('content-type')).toBe(first.headers.get('content-type'));
    expect(replay.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(ledger.runsFor(key)).toBe(1);
  });

  it('answers 422 for the same key with another body or another path, running nothing', async () => {
    const key = randomUUID();
    const body = JSON.stringify({ amount: 1500 });
    expect((await send(url('payments'), body, key)).status).toBe(201);
    const otherBody = await send(url('payments'), JSON.stringify({ amount: 1501 }), key);
    expect(otherBody.status).toBe(422);
    expect(JSON.parse(otherBody.text)).toMatchObject({
      statusCode: 422,
      message: expect.stringContaining('already used for a different request'),
    });
    const otherPath = await send(url('payments/pay_1/capture'), body, key);
    expect(otherPath.status).toBe(422);
    expect(ledger.runsFor(key)).toBe(1);
    // The original request still gets its answer.
    expect((await send(url('payments'), body, key)).headers.get('idempotent-replayed')).toBe(
      'true',
    );
  });

  it('releases the key after an unhandled error (500): a retry with the same key runs again', async () => {
    const key = randomUUID();
    const body = JSON.stringify({ amount: 2500 });
    ledger.failuresLeft = 1;
    const failed = await send(url('payments'), body, key);
    expect(failed.status).toBe(500);
    expect(await keyRows(key)).toEqual([]);
    const retried = await send(url('payments'), body, key);
    expect(retried.status).toBe(201);
    expect(retried.headers.get('idempotent-replayed')).toBeNull();
    expect(ledger.runsFor(key)).toBe(2);
    const replay = await send(url('payments'), body, key);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.bytes.equals(retried.bytes)).toBe(true);
    expect(ledger.runsFor(key)).toBe(2);
  });

  it("stores the handler's own 4xx answer and replays it", async () => {
    const key = randomUUID();
    const body = JSON.stringify({ amount: 50 });
    const refused = await send(url('payments'), body, key);
    expect(refused.status).toBe(400);
    expect(refused.text).toContain('amount must be at least 100');
    const replay = await send(url('payments'), body, key);
    expect(replay.status).toBe(400);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.bytes.equals(refused.bytes)).toBe(true);
    expect(ledger.runsFor(key)).toBe(1);
  });

  it('answers 400 naming the header when a required key is missing or malformed', async () => {
    const missing = await send(url('required'), '{}');
    expect(missing.status).toBe(400);
    expect(JSON.parse(missing.text)).toMatchObject({
      statusCode: 400,
      message: expect.stringContaining('needs an Idempotency-Key header'),
    });
    const malformed = await send(url('required'), '{}', 'two words');
    expect(malformed.status).toBe(400);
    expect(malformed.text).toContain('1 to 255 visible ASCII characters');
    const tooLong = await send(url('required'), '{}', 'k'.repeat(256));
    expect(tooLong.status).toBe(400);
    expect(ledger.runsFor('required:none')).toBe(0);
    // The IETF draft's structured-field form, a quoted string, is accepted too.
    const key = `"${randomUUID()}"`;
    expect((await send(url('required'), '{}', key)).status).toBe(201);
    expect((await send(url('required'), '{}', key)).headers.get('idempotent-replayed')).toBe(
      'true',
    );
    expect(ledger.runsFor(`required:${key}`)).toBe(1);
  });

  it('runs every request without a key where the key is optional', async () => {
    const body = JSON.stringify({ amount: 100 });
    const [a, b] = [await send(url('payments'), body), await send(url('payments'), body)];
    expect([a.status, b.status]).toEqual([201, 201]);
    expect(a.headers.get('idempotent-replayed')).toBeNull();
    expect(b.headers.get('idempotent-replayed')).toBeNull();
    expect(JSON.parse(a.text).id).not.toBe(JSON.parse(b.text).id);
  });

  it('keeps the keys of different principals and of different scopes apart', async () => {
    const key = randomUUID();
    const alice = await send(url('tenants'), '{}', key, { 'x-account': 'acct_alice' });
    const bob = await send(url('tenants'), '{}', key, { 'x-account': 'acct_bob' });
    expect([alice.status, bob.status]).toEqual([201, 201]);
    expect(JSON.parse(alice.text)).toMatchObject({ account: 'acct_alice' });
    expect(JSON.parse(bob.text)).toMatchObject({ account: 'acct_bob' });
    const aliceAgain = await send(url('tenants'), '{}', key, { 'x-account': 'acct_alice' });
    expect(aliceAgain.bytes.equals(alice.bytes)).toBe(true);
    expect(ledger.runsFor(`acct_alice:${key}`)).toBe(1);
    expect(ledger.runsFor(`acct_bob:${key}`)).toBe(1);
    expect((await keyRows(key)).map((row) => row.principal).sort()).toEqual([
      'acct_alice',
      'acct_bob',
    ]);

    const shared = randomUUID();
    const body = JSON.stringify({ amount: 300 });
    const pay = await send(url('payments'), body, shared);
    const refund = await send(url('refunds'), body, shared);
    expect([pay.status, refund.status]).toEqual([201, 201]);
    expect(refund.headers.get('idempotent-replayed')).toBeNull();
    expect(ledger.runsFor(shared)).toBe(2);
  });

  it('renews the lease while a handler runs longer than it', async () => {
    const key = randomUUID();
    const body = JSON.stringify({ amount: 100 });
    const gate = (ledger.gate = new Gate());
    const first = send(url('slow'), body, key);
    await eventually(() => ledger.runsFor(key) === 1);
    // The key was claimed before the handler ran: its lease of 1 s ends before this.
    const claimedLeaseEnd = Date.now() + 1000;
    const claimed = await lockedUntil(key);
    await eventually(
      async () => Date.now() > claimedLeaseEnd && (await lockedUntil(key)) > claimed,
    );
    const during = await send(url('slow'), body, key);
    expect(during.status).toBe(409);
    gate.open();
    expect((await first).status).toBe(201);
    const after = await send(url('slow'), body, key);
    expect(after.headers.get('idempotent-replayed')).toBe('true');
    expect(ledger.runsFor(key)).toBe(1);
  });

  it('takes over the key of a crashed request once its lease has run out', async () => {
    const store = api.app.get<IdempotencyStore>(IdempotencyStore);
    const key = randomUUID();
    const raw = JSON.stringify({ amount: 777 });
    // The documented fingerprint: SHA-256 of method, path and the SHA-256 of the raw body.
    const fingerprint = sha256(`POST\n/payments\n${sha256(raw)}`);
    const claim = { scope: 'pay', principal: '', key, ttlMs: 3_600_000, leaseMs: 1000 };
    // Another instance took the key and died: nothing renews or settles it.
    expect(await store.claimKey({ ...claim, fingerprint, now: new Date() })).toMatchObject({
      outcome: 'acquired',
    });
    const otherKey = randomUUID();
    await store.claimKey({
      ...claim,
      key: otherKey,
      fingerprint: sha256('another'),
      now: new Date(),
    });

    const blocked = await send(url('payments'), raw, key);
    expect(blocked.status).toBe(409);
    expect(blocked.headers.get('retry-after')).toBe('1');
    expect(ledger.runsFor(key)).toBe(0);

    // Its lease runs out (as one second later): the time it was locked until is past.
    await api.app
      .get(WebhookTransactions)
      .run((manager) =>
        manager.query(
          `UPDATE idempotency_keys SET locked_until = ${placeholder(database, 1)} WHERE idempotency_key = ${placeholder(database, 2)}`,
          [dbDate(database, new Date(Date.now() - 1)), key],
        ),
      );
    const taken = await send(url('payments'), raw, key);
    expect(taken.status).toBe(201);
    expect(taken.headers.get('idempotent-replayed')).toBeNull();
    expect(ledger.runsFor(key)).toBe(1);
    // A crashed request with another body is never taken over by this one.
    expect((await send(url('payments'), raw, otherKey)).status).toBe(422);
  });

  it('forgets an expired key (a request with it runs again) and purgeExpired removes it', async () => {
    const key = randomUUID();
    const body = JSON.stringify({ amount: 1234 });
    const first = await send(url('payments'), body, key);
    const expire = () =>
      api.app
        .get(WebhookTransactions)
        .run((manager) =>
          manager.query(
            `UPDATE idempotency_keys SET expires_at = ${placeholder(database, 1)} WHERE idempotency_key = ${placeholder(database, 2)}`,
            [dbDate(database, new Date(Date.now() - 1000)), key],
          ),
        );
    await expire();
    const again = await send(url('payments'), body, key);
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBeNull();
    expect(JSON.parse(again.text).id).not.toBe(JSON.parse(first.text).id);
    expect(ledger.runsFor(key)).toBe(2);

    await expire();
    const store = api.app.get<IdempotencyStore>(IdempotencyStore);
    const purged = await store.purgeExpired(new Date(), 100);
    expect(purged.keys).toBeGreaterThanOrEqual(1);
    expect(await keyRows(key)).toEqual([]);
  });

  it('answers 409 with Retry-After and keeps nothing when an outgoing call is still running', async () => {
    const key = randomUUID();
    ledger.busyLeft = 1;
    const busy = await send(url('busy'), '{}', key);
    expect(busy.status).toBe(409);
    expect(busy.headers.get('retry-after')).toBe('3');
    expect(busy.text).toContain('operation is already in progress');
    expect(await keyRows(key)).toEqual([]);
    const retried = await send(url('busy'), '{}', key);
    expect(retried.status).toBe(201);
    expect(ledger.runsFor(key)).toBe(2);
  });
});

describe('@Idempotent across two instances on one PostgreSQL', () => {
  it.each<Platform>(['express', 'fastify'])(
    'runs the handler once for identical requests spread over both instances (%s)',
    async (platform) => {
      const ledger = new Ledger();
      const first = await startApi(platform, 'postgres', ledger);
      const second = await startApi(platform, 'postgres', ledger, sameDatabaseAs(first));
      try {
        const key = randomUUID();
        const body = JSON.stringify({ amount: 999, delayMs: 150 });
        const responses = await Promise.all(
          Array.from({ length: 20 }, (_, i) =>
            send(`${(i % 2 ? first : second).url}/payments`, body, key),
          ),
        );
        expect(ledger.runsFor(key)).toBe(1);
        const created = responses.filter((r) => r.status === 201);
        expect(created.length).toBeGreaterThanOrEqual(1);
        expect(responses.every((r) => r.status === 201 || r.status === 409)).toBe(true);
        for (const response of created) {
          expect(response.bytes.equals(created[0].bytes)).toBe(true);
        }
        const fromFirst = await send(`${first.url}/payments`, body, key);
        const fromSecond = await send(`${second.url}/payments`, body, key);
        expect(fromFirst.bytes.equals(created[0].bytes)).toBe(true);
        expect(fromSecond.bytes.equals(created[0].bytes)).toBe(true);
        expect(ledger.runsFor(key)).toBe(1);
      } finally {
        await second.app.close();
        await first.close();
      }
    },
  );
});

describe('@Idempotent in a feature module', () => {
  @Controller('feature')
  class FeatureController {
    constructor(private readonly ledger: Ledger) {}

    @Post()
    @Idempotent({ scope: 'feature' })
    create(@Headers('idempotency-key') key: string | undefined) {
      this.ledger.record(key);
      return { created: ++created };
    }
  }

  it('works in a module that imports neither WebhooksModule nor IdempotencyModule', async () => {
    const ledger = new Ledger();
    @Module({
      controllers: [FeatureController],
      providers: [{ provide: Ledger, useValue: ledger }],
    })
    class FeatureModule {}
    const dir = mkdtempSync(join(tmpdir(), 'pw-idem-feature-'));
    @Module({
      imports: [
        TypeOrmModule.forRoot({
          type: 'better-sqlite3',
          database: join(dir, 'app.sqlite'),
          autoLoadEntities: true,
          migrations: [...webhooksMigrations, ...idempotencyMigrations],
          migrationsRun: true,
        }),
        WebhooksModule.forRoot(WEBHOOKS),
        IdempotencyModule.forRoot(),
        FeatureModule,
      ],
    })
    class FeatureAppModule {}
    const app = await NestFactory.create(FeatureAppModule, { rawBody: true, logger: false });
    try {
      await app.listen(0, '127.0.0.1');
      const base = (await app.getUrl()).replace('[::1]', '127.0.0.1');
      const key = randomUUID();
      const first = await send(`${base}/feature`, '{}', key);
      const again = await send(`${base}/feature`, '{}', key);
      expect([first.status, again.status]).toEqual([201, 201]);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(ledger.runsFor(key)).toBe(1);
    } finally {
      await app.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('fails at startup naming the fix when the app has no IdempotencyModule', async () => {
    @Module({
      controllers: [FeatureController],
      providers: [{ provide: Ledger, useValue: new Ledger() }],
    })
    class NoIdempotencyModule {}
    await expect(
      NestFactory.create(NoIdempotencyModule, { logger: false, abortOnError: false }).then((app) =>
        app.init(),
      ),
    ).rejects.toThrow(/need IdempotencyModule in the application: add IdempotencyModule.forRoot/);
  });
});

describe('@Idempotent options', () => {
  it('fails when a route is declared with a ttl outside 1 hour to 30 days', () => {
    expect(() => {
      @Controller()
      class ShortLivedController {
        @Post()
        @Idempotent({ ttlMs: 60_000 })
        create(): void {}
      }
      return ShortLivedController;
    }).toThrow(/`ttlMs` must be .*3600000 \(1 hour\) to 2592000000 \(30 days\)/);
  });
});

/* ------------------------------------------------------------------------------------------ */
/* The sample shop: POST /orders and POST /orders/:id/refund                                   */
/* ------------------------------------------------------------------------------------------ */

type SecretName = keyof typeof DEVELOPMENT_SECRETS;
const SHOP_STRIPE_SECRET = 'whsec_idempotency_e2e_shop_secret';

describe.each(['sqlite', 'postgres'] as const)('sample shop idempotency on %s', (kind) => {
  let app: INestApplication;
  let url: string;
  let cleanup: () => Promise<void> = async () => undefined;
  const saved = new Map<SecretName, string | undefined>();

  beforeAll(async () => {
    // NOTE: every secret set, so the shop does not warn about development secrets; Stripe's
    // is this suite's own, to sign the payments that make orders refundable.
    for (const name of Object.keys(DEVELOPMENT_SECRETS) as SecretName[]) {
      saved.set(name, process.env[name]);
      process.env[name] = process.env[name] || DEVELOPMENT_SECRETS[name];
    }
    process.env.STRIPE_WEBHOOK_SECRET = SHOP_STRIPE_SECRET;
    let database: ShopDatabase;
    if (kind === 'postgres') {
      const pg: TestDatabase = await createTestDatabase();
      database = { databaseUrl: pg.url, sqlitePath: '' };
      cleanup = () => pg.drop();
    } else {
      const dir = mkdtempSync(join(tmpdir(), 'pw-idem-shop-'));
      database = { sqlitePath: join(dir, 'shop.sqlite') };
      cleanup = async () => rmSync(dir, { recursive: true, force: true });
    }
    app = await NestFactory.create<NestExpressApplication>(AppModule.forRoot(database), {
      rawBody: true,
      logger: process.env.TEST_LOGS ? undefined : false,
      abortOnError: false,
    });
    configureApp(app as NestExpressApplication);
    await app.listen(0, '127.0.0.1');
    url = (await app.getUrl()).replace('[::1]', '127.0.0.1');
  });
  afterAll(async () => {
    await app?.close();
    await cleanup();
    for (const [name, value] of saved) {
      if (value === undefined) {
        delete process.env[name];
      } else {
        process.env[name] = value;
      }
    }
  });

  const countOrders = () => app.get(WebhookTransactions).run((manager) => manager.count(Order));
  const orderOf = (id: string) =>
    app.get(WebhookTransactions).run((manager) => manager.findOneByOrFail(Order, { id }));

  async function paidOrder(): Promise<{ id: string; amount: number }> {
    const created = await send(
      `${url}/orders`,
      JSON.stringify({ amount: 2599, currency: 'EUR' }),
      randomUUID(),
    );
    const order = JSON.parse(created.text) as { id: string; amount: number };
    const event = signedStripeEvent(SHOP_STRIPE_SECRET, {
      orderId: order.id,
      amount: 2599,
      currency: 'eur',
    });
    const delivered = await send(`${url}/webhooks/stripe`, event.body, undefined, event.headers);
    expect(delivered.status).toBe(200);
    await eventually(async () => (await orderOf(order.id)).state === 'paid');
    return order;
  }

  it('creates one order for 20 concurrent POST /orders with one key', async () => {
    const before = await countOrders();
    const key = randomUUID();
    const body = JSON.stringify({ amount: 1999, currency: 'USD' });
    const responses = await Promise.all(
      Array.from({ length: 20 }, () => send(`${url}/orders`, body, key)),
    );
    expect(await countOrders()).toBe(before + 1);
    const created = responses.filter((r) => r.status === 201);
    expect(created.length).toBeGreaterThanOrEqual(1);
    expect(responses.every((r) => r.status === 201 || r.status === 409)).toBe(true);
    for (const response of created) {
      expect(response.bytes.equals(created[0].bytes)).toBe(true);
    }
    const replay = await send(`${url}/orders`, body, key);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.bytes.equals(created[0].bytes)).toBe(true);
    expect(await countOrders()).toBe(before + 1);
    // The same key with another order is refused, not a second order.
    expect(
      (await send(`${url}/orders`, JSON.stringify({ amount: 1, currency: 'USD' }), key)).status,
    ).toBe(422);
  });

  it('refuses a refund without an Idempotency-Key', async () => {
    const order = await paidOrder();
    const response = await send(`${url}/orders/${order.id}/refund`, '{}');
    expect(response.status).toBe(400);
    expect(response.text).toContain('Idempotency-Key');
    expect((await orderOf(order.id)).state).toBe('paid');
  });

  it('refunds a paid order once at the provider, however many requests ask for it', async () => {
    const gateway = app.get(SandboxRefundsGateway);
    const refundsBefore = gateway.refundCount;
    const order = await paidOrder();
    const keys = Array.from({ length: 8 }, () => randomUUID());
    const refundUrl = `${url}/orders/${order.id}/refund`;
    // Eight clients (each with its own key) ask at once; each retries its 409s.
    const answers = await Promise.all(
      keys.map(async (key) => {
        for (;;) {
          const response = await send(refundUrl, JSON.stringify({ amount: 1000 }), key);
          if (response.status !== 409) {
            return response;
          }
          expect(Number(response.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
          await sleep(100);
        }
      }),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(keys.length).fill(200));
    expect(gateway.refundCount).toBe(refundsBefore + 1);
    const refunded = await orderOf(order.id);
    expect(refunded).toMatchObject({ state: 'refunded', refundedAmount: 1000 });
    expect(refunded.refundId).toMatch(/^re_/);
    for (const answer of answers) {
      expect(JSON.parse(answer.text)).toMatchObject({
        id: order.id,
        state: 'refunded',
        refundId: refunded.refundId,
      });
    }
    // A retry with a key replays its own answer without reaching the provider.
    const requests = gateway.requestCount;
    const replay = await send(refundUrl, JSON.stringify({ amount: 1000 }), keys[0]);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.bytes.equals(answers[0].bytes)).toBe(true);
    expect(gateway.requestCount).toBe(requests);
  });

  it('stores the refusal to refund a pending order and replays it', async () => {
    const created = await send(
      `${url}/orders`,
      JSON.stringify({ amount: 500, currency: 'EUR' }),
      randomUUID(),
    );
    const order = JSON.parse(created.text) as { id: string };
    const key = randomUUID();
    const refused = await send(`${url}/orders/${order.id}/refund`, '{}', key);
    expect(refused.status).toBe(400);
    expect(refused.text).toContain('only a paid order can be refunded');
    const replay = await send(`${url}/orders/${order.id}/refund`, '{}', key);
    expect(replay.status).toBe(400);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.bytes.equals(refused.bytes)).toBe(true);
  });
});
