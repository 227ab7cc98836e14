import { hmacValidator } from '@adyen/api-library';
import type { NotificationRequestItem } from '@adyen/api-library/lib/src/typings/notification/models';
import { Paddle } from '@paddle/paddle-node-sdk';
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WebhooksHelper } from 'square';
import { Webhook } from 'standardwebhooks';
import Stripe from 'stripe';
import {
  hmacEndpoint,
  stripeEndpoint,
  WebhookEndpoint,
  WebhookTransactions,
} from 'nestjs-payment-webhooks';
import {
  adyenNotificationItem,
  paddleFixtures,
  sberFixtures,
  squareFixtures,
} from 'nestjs-payment-webhooks/testing';
import {
  CLI_MAIN,
  cliJson,
  CliResult,
  closedPort,
  ensureBuiltCli,
  runBuiltCli,
} from '../support/cli';
import { post } from '../support/http';
import { PROVIDER_KITS } from '../providers/kits';
import { WebhookEventEntity } from '../support/internals';
import { stripeEventId, stripePaymentEvent, StripeTestEvent } from '../support/stripe-event';
import { createTestDatabase } from '../support/postgres';
import { countEffects, Database, eventually, startTestApp, TestApp } from '../support/test-app';

/**
 * The CLI as users run it: the built dist/cli/main.js in a child process, against the same
 * SQLite file or PostgreSQL database as a running app, with real signed deliveries.
 */

const ROOT = join(__dirname, '..', '..');
const WORK = mkdtempSync(join(tmpdir(), 'pw-cli-'));
const SECRET = 'whsec_cli_e2e_secret';
const DAY = 86_400_000;

/** Runs the built CLI in the work directory. */
function cli(args: string[], env: Record<string, string> = {}, input?: string): Promise<CliResult> {
  return runBuiltCli(args, { env, input, cwd: WORK });
}

const json = cliJson;

let files = 0;
/** Writes `content` to a new file in the work directory, with the final newline editors add. */
function payloadFile(content: string | object): string {
  const path = join(WORK, `payload-${files++}.json`);
  writeFileSync(path, `${typeof content === 'string' ? content : JSON.stringify(content)}\n`);
  return path;
}

/** A Stripe event, signed anew for each attempt; its payment id is `pi_<event id>`. */
function stripeEvent(type?: string): StripeTestEvent {
  const id = stripeEventId();
  return stripePaymentEvent(SECRET, {
    id,
    type,
    orderId: `o-${id}`,
    amount: 1250,
    currency: 'eur',
  });
}

beforeAll(() => ensureBuiltCli(), 300_000);

describe('CLI without a database', () => {
  it('prints help and the version, exit code 0', async () => {
    const help = await cli(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Usage: nestjs-payment-webhooks <command>/);
    for (const command of ['events list', 'events replay', 'stats', 'sign', 'send', 'migrate']) {
      expect(help.stdout).toContain(command);
    }
    const list = await cli(['events', 'list', '--help']);
    expect(list.code).toBe(0);
    expect(list.stdout).toContain('--status <list>');
    expect(list.stdout).toContain('--database-url <url>');
    const send = await cli(['help', 'send']);
    expect(send.stdout).toContain('--notification-url <url>');
    const version = await cli(['--version']);
    const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
      version: string;
      bin: Record<string, string>;
    };
    expect(version.stdout.trim()).toBe(manifest.version);
    expect(manifest.bin['nestjs-payment-webhooks']).toBe('dist/cli/main.js');
    expect(readFileSync(CLI_MAIN, 'utf8').startsWith('#!/usr/bin/env node\n')).toBe(true);
  });

  it.each([
    [['frobnicate'], /unknown command "frobnicate"/],
    [['events'], /"events" needs a subcommand: list, show, groups, replay, discard, purge/],
    [['events', 'list', '--bogus'], /unknown option --bogus/],
    [
      ['events', 'list', '--sqlite', 'x.sqlite', '--limit', '0'],
      /--limit must be an integer from 1 to 1000/,
    ],
    [['events', 'list', '--sqlite', 'x.sqlite', '--since', 'yesterday'], /--since must be an age/],
    [
      ['events', 'list', '--sqlite', 'x.sqlite', '--since', '99999999d'],
      /--since must be a time from 1970-01-01T00:00:00Z to 9999-12-31T23:59:59Z \(got "99999999d"/,
    ],
    [
      ['events', 'replay', '--sqlite', 'x.sqlite', '--since', '1969-12-31T00:00:00Z'],
      /--since must be a time from 1970/,
    ],
    [
      ['events', 'list', '--sqlite', 'x.sqlite', '--since', '1d', '--until', '2d'],
      /--since must be before --until/,
    ],
    [
      ['events', 'purge', '--sqlite', 'x.sqlite', '--older-than', '99999999d'],
      /--older-than must be a time from 1970/,
    ],
    [
      ['events', 'list', '--sqlite', 'x.sqlite', '--status', 'done'],
      /--status takes pending, processing/,
    ],
    [['stats'], /no database given/],
    [['stats', '--sqlite', 'a.sqlite', '--database-url', 'postgres://h/db'], /not both/],
    [['events', 'purge', '--sqlite', 'a.sqlite'], /--older-than is required/],
    [['reconcile'], /ReconciliationService\.reconcile\(\{ endpoint \}\) from the app/],
    [['sign', '--provider', 'stripe', '--file', 'x.json'], /--provider stripe needs --secret/],
  ])('refuses %j with exit code 2 and one line on stderr', async (args, message) => {
    const result = await cli(args);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(result.stdout).toBe('');
  });

  it('starts without loading TypeORM for what needs no database: help, usage errors, sign', () => {
    // NOTE: the CLI run by a script that reports, as the process exits, whether TypeORM was loaded.
    const loadsTypeOrm = (args: string[]) => {
      const script =
        `process.argv.splice(1, 0, ${JSON.stringify(CLI_MAIN)});` +
        "process.on('exit', () => process.stderr.write('\\ntypeorm: ' + Object.keys(require.cache)" +
        ".some((path) => path.includes('/node_modules/typeorm/'))));" +
        `require(${JSON.stringify(CLI_MAIN)});`;
      const run = spawnSync(process.execPath, ['-e', script, '--', ...args], {
        cwd: WORK,
        env: { PATH: process.env.PATH ?? '' },
        encoding: 'utf8',
      });
      return { code: run.status, typeorm: run.stderr.trim().split('\n').pop() };
    };
    const file = payloadFile(stripeEvent().body);
    expect([
      loadsTypeOrm(['--help']),
      loadsTypeOrm(['events', 'list', '--bogus']),
      loadsTypeOrm(['stats']),
      loadsTypeOrm(['sign', '--provider', 'stripe', '--secret', SECRET, '--file', file]),
    ]).toEqual([
      { code: 0, typeorm: 'typeorm: false' },
      { code: 2, typeorm: 'typeorm: false' },
      { code: 2, typeorm: 'typeorm: false' },
      { code: 0, typeorm: 'typeorm: false' },
    ]);
    expect(loadsTypeOrm(['stats', '--sqlite', join(WORK, 'missing.sqlite')])).toEqual({
      code: 1,
      typeorm: 'typeorm: true',
    });
  });

  it('never prints a database password, and fails with exit code 1 when it cannot connect', async () => {
    const scheme = await cli(['stats'], { DATABASE_URL: 'mysql://shop:hunter2@db/shop' });
    expect(scheme.code).toBe(2);
    expect(scheme.stderr).toContain('"mysql:"');
    expect(scheme.stderr).not.toContain('hunter2');

    const unreachable = await cli([
      'stats',
      '--database-url',
      'postgres://shop:hunter2@127.0.0.1:1/shop',
    ]);
    expect(unreachable.code).toBe(1);
    expect(unreachable.stderr).toContain('postgres://shop:***@127.0.0.1:1/shop');
    expect(unreachable.stderr).not.toContain('hunter2');

    const missing = await cli(['stats', '--sqlite', join(WORK, 'missing.sqlite')]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/missing\.sqlite does not exist/);
    expect(existsSync(join(WORK, 'missing.sqlite'))).toBe(false);
  });

  it('migrates a new database once, and says the tables are missing before that', async () => {
    const sqlite = join(WORK, `fresh-${randomUUID()}.sqlite`);
    const ran = await cli(['migrate', '--sqlite', sqlite, '--json']);
    expect(ran.code).toBe(0);
    expect(json<{ ran: string[] }>(ran).ran).toEqual([
      'CreateWebhooksTables1764400000000',
      'AddEventOutcomes1764500000000',
      'CreateIdempotencyTables1764560000000',
      'AddWebhookTransmissions1764600000000',
      'SplitEventWork1764700000000',
      'AddEventTenants1764800000000',
      'AddEventHistory1764900000000',
      'AddRecoveryJobs1765000000000',
      'AddEventCopies1765100000000',
    ]);
    expect(
      json<{ ran: string[] }>(await cli(['migrate', '--sqlite', sqlite, '--json'])).ran,
    ).toEqual([]);

    const postgres = await createTestDatabase();
    try {
      const before = await cli(['stats', '--database-url', postgres.url]);
      expect(before.code).toBe(1);
      expect(before.stderr).toMatch(
        /webhook tables are missing .* run "nestjs-payment-webhooks migrate"/,
      );
      const migrate = await cli(['migrate'], { DATABASE_URL: postgres.url });
      expect(migrate.code).toBe(0);
      expect(migrate.stdout).toMatch(/Ran 9 migration\(s\)/);
      const after = await cli(['stats', '--json'], { DATABASE_URL: postgres.url });
      expect(after.code).toBe(0);
      expect(json<{ counts: unknown[] }>(after).counts).toEqual([]);
    } finally {
      await postgres.drop();
    }
  });
});

describe.each<Database>(['sqlite', 'postgres'])('CLI on %s, next to a running app', (database) => {
  let app: TestApp;
  let transactions: WebhookTransactions;
  let connection: string[];
  let env: Record<string, string>;

  beforeAll(async () => {
    app = await startTestApp({
      platform: 'express',
      database,
      // NOTE: with IdempotencyModule, so `retention run` finds its tables and purges them too.
      idempotency: true,
      webhooks: {
        endpoints: [stripeEndpoint({ name: 'stripe', secret: SECRET })],
        dispatch: {
          pollIntervalMs: 50,
          retry: { maxAttempts: 2, baseDelayMs: 10, maxDelayMs: 20 },
        },
      },
    });
    transactions = app.app.get(WebhookTransactions);
    connection =
      database === 'sqlite' ? ['--sqlite', app.sqliteFile!] : ['--database-url', app.databaseUrl!];
    env = { DATABASE_URL: database === 'sqlite' ? `sqlite:${app.sqliteFile}` : app.databaseUrl! };
  });

  afterAll(() => app.close());

  const rowOf = (eventId: string) =>
    transactions.run((manager) => manager.findOneBy(WebhookEventEntity, { eventId }));
  const statusOf = async (eventId: string) => (await rowOf(eventId))?.status;

  /** Delivers an event signed by Stripe's own SDK, as Stripe would. */
  async function deliver(event = stripeEvent()): Promise<StripeTestEvent> {
    const response = await post(`${app.url}/webhooks/stripe`, event.body, event.headers());
    expect(response.status).toBe(200);
    return event;
  }

  async function settle(event: { id: string }, status: string): Promise<WebhookEventEntity> {
    await eventually(async () => (await statusOf(event.id)) === status);
    return (await rowOf(event.id))!;
  }

  it('send posts exactly what sign prints, the app stores it, and the handler runs once', async () => {
    const event = stripeEvent();
    const file = payloadFile(event.body);
    const signed = await cli([
      'sign',
      '--provider',
      'stripe',
      '--secret',
      SECRET,
      '--file',
      file,
      '--json',
    ]);
    expect(signed.code).toBe(0);
    const delivery = json<{ method: string; body: string; headers: Record<string, string> }>(
      signed,
    );
    expect(delivery.method).toBe('POST');
    expect(delivery.body).toBe(event.body);
    // NOTE: checked by Stripe's own SDK, not by the package.
    expect(
      Stripe.webhooks.constructEvent(delivery.body, delivery.headers['stripe-signature'], SECRET)
        .id,
    ).toBe(event.id);

    const sent = await cli(
      [
        'send',
        `${app.url}/webhooks/stripe`,
        '--provider',
        'stripe',
        '--secret-env',
        'STRIPE_WEBHOOK_SECRET',
        '--file',
        file,
        '--json',
      ],
      { STRIPE_WEBHOOK_SECRET: SECRET },
    );
    expect(sent.code).toBe(0);
    expect(json<{ ok: boolean; status: number }>(sent)).toMatchObject({ ok: true, status: 200 });
    const row = await settle(event, 'processed');
    expect(row.rawBody).toBe(event.body);
    expect(await countEffects(app, event.id)).toBe(1);

    const human = await cli([
      'send',
      `${app.url}/webhooks/stripe`,
      '--provider',
      'stripe',
      '--secret',
      SECRET,
      '--file',
      file,
    ]);
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/^HTTP 200 OK/);
    expect((await rowOf(event.id))!.deliveryCount).toBe(2);
    expect(await countEffects(app, event.id)).toBe(1);
  });

  it('send exits with 1 when the app refuses the delivery or cannot be reached', async () => {
    const event = stripeEvent();
    const file = payloadFile(event.body);
    const refused = await cli([
      'send',
      `${app.url}/webhooks/stripe`,
      '--provider',
      'stripe',
      '--secret',
      'whsec_wrong',
      '--file',
      file,
    ]);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toMatch(/^HTTP 400/);
    expect(refused.stderr).toMatch(/answered 400, not 2xx/);
    expect(await rowOf(event.id)).toBeNull();

    const port = await closedPort();
    const closed = await cli([
      'send',
      `http://127.0.0.1:${port}/webhooks/stripe`,
      '--provider',
      'stripe',
      '--secret',
      SECRET,
      '--file',
      file,
    ]);
    expect(closed.code).toBe(1);
    expect(closed.stderr).toMatch(
      new RegExp(`could not send to http://127\\.0\\.0\\.1:${port}/webhooks/stripe: ECONNREFUSED`),
    );
  });

  it('lists, shows and counts what the app stored, as tables or --json', async () => {
    const good = await deliver();
    const broken = stripeEvent();
    app.control.scripts.set(broken.id, { alwaysFail: true });
    await deliver(broken);
    await settle(good, 'processed');
    const dead = await settle(broken, 'dead');

    const deadList = await cli(['events', 'list', ...connection, '--status', 'dead', '--json']);
    expect(deadList.code).toBe(0);
    const listed =
      json<{ id: string; eventId: string; status: string; rawBody?: string }[]>(deadList);
    expect(listed.map((row) => row.eventId)).toContain(broken.id);
    expect(listed.every((row) => row.status === 'dead')).toBe(true);
    expect(listed[0].rawBody).toBeUndefined();

    const byPayment = json<{ eventId: string }[]>(
      await cli(['events', 'list', '--payment', `pi_${good.id}`, '--json'], env),
    );
    expect(byPayment.map((row) => row.eventId)).toEqual([good.id]);
    const byEventId = json<{ eventId: string }[]>(
      await cli(['events', 'list', '--event', good.id, '--json'], env),
    );
    expect(byEventId.map((row) => row.eventId)).toEqual([good.id]);

    const table = await cli(['events', 'list', ...connection, '--status', 'dead']);
    expect(table.stdout.split('\n')[0]).toMatch(
      /^ID\s+RECEIVED\s+ENDPOINT\s+EVENT ID\s+TYPE\s+STATUS/,
    );
    expect(table.stdout).toContain(dead.id);

    const goodRow = (await rowOf(good.id))!;
    const shown = json<{
      rawBody: string;
      headers: Record<string, string>;
      handlerRuns: { handlerKey: string }[];
      status: string;
    }>(await cli(['events', 'show', goodRow.id, ...connection, '--json']));
    expect(shown.status).toBe('processed');
    expect(shown.rawBody).toBe(good.body);
    expect(shown.headers['stripe-signature']).toBeUndefined();
    expect(shown.handlerRuns.map((run) => run.handlerKey)).toEqual([
      'TestPaymentHandlers.onPayment',
    ]);
    const text = await cli(['events', 'show', dead.id, ...connection]);
    expect(text.stdout).toContain(`Event ${dead.id}`);
    expect(text.stdout).toContain('handler failure on attempt 2');
    expect(text.stdout).toContain(broken.body);

    const unknown = await cli(['events', 'show', randomUUID(), ...connection]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/no event with inbox id/);

    const stats = json<{
      counts: { endpoint: string; status: string; count: number }[];
      totals: Record<string, number>;
      oldestPendingAt: string | null;
    }>(await cli(['stats', ...connection, '--json']));
    const expected = await transactions.run(async (manager) => ({
      processed: await manager.countBy(WebhookEventEntity, { status: 'processed' }),
      dead: await manager.countBy(WebhookEventEntity, { status: 'dead' }),
    }));
    expect(stats.totals).toMatchObject(expected);
    expect(stats.counts).toContainEqual({
      endpoint: 'stripe',
      status: 'dead',
      count: expected.dead,
    });
    expect(stats.oldestPendingAt).toBeNull();
    const statsText = await cli(['stats', ...connection]);
    expect(statsText.stdout).toMatch(
      /^ENDPOINT\s+PENDING\s+PROCESSING\s+RETRYING\s+PROCESSED\s+IGNORED\s+DEAD\s+TOTAL/,
    );
    expect(statsText.stdout).toContain('No event is waiting to run.');
  });

  it('replays dead events with progress on stderr, and each handler effect applies once', async () => {
    const since = new Date().toISOString();
    const broken = [stripeEvent(), stripeEvent()];
    for (const event of broken) {
      app.control.scripts.set(event.id, { alwaysFail: true });
      await deliver(event);
    }
    for (const event of broken) {
      await settle(event, 'dead');
      app.control.scripts.delete(event.id);
    }

    const replay = await cli([
      'events',
      'replay',
      ...connection,
      '--status',
      'dead',
      '--since',
      since,
    ]);
    // NOTE: with its stderr, so that a refusal says why.
    expect({ code: replay.code, stderr: replay.stderr }).toMatchObject({ code: 0 });
    expect(replay.stderr).toContain('replayed 2/2');
    expect(replay.stdout).toMatch(/Replayed 2 event\(s\)/);
    for (const event of broken) {
      await settle(event, 'processed');
      expect(await countEffects(app, event.id)).toBe(1);
    }

    const one = (await rowOf(broken[0].id))!;
    const again = await cli(['events', 'replay', one.id, ...connection, '--json']);
    expect(again.code).toBe(0);
    expect(json(again)).toEqual({ replayed: 1, ids: [one.id] });
    await eventually(async () => {
      const row = (await rowOf(broken[0].id))!;
      return row.status === 'processed' && row.processedAt!.getTime() > one.processedAt!.getTime();
    });
    expect(await countEffects(app, broken[0].id)).toBe(1);

    const nothing = await cli(['events', 'replay', ...connection, '--since', since, '--json']);
    expect(json(nothing)).toEqual({ replayed: 0 });
    const missing = await cli(['events', 'replay', randomUUID(), ...connection]);
    expect(missing.code).toBe(1);
    const mixed = await cli(['events', 'replay', one.id, '--status', 'dead', ...connection]);
    expect(mixed.code).toBe(2);
    expect(mixed.stderr).toMatch(/give an id or filters, not both/);
  });

  it('runs retention once and removes what the app would', async () => {
    const tooShort = await cli(['retention', 'run', ...connection, '--dedup-days', '3']);
    expect(tooShort.code).toBe(2);
    expect(tooShort.stderr).toMatch(/--dedup-days must be at least 7 \(got 3\)/);

    const old = stripeEvent();
    await deliver(old);
    await settle(old, 'processed');
    await transactions.run((manager) =>
      manager.update(
        WebhookEventEntity,
        { eventId: old.id },
        { receivedAt: new Date(Date.now() - 40 * DAY) },
      ),
    );
    const run = await cli(['retention', 'run', ...connection, '--json']);
    expect(run.code).toBe(0);
    const report = json<{
      deletedEvents: number;
      deletedHandlerRuns: number;
      processedDays: number;
      idempotency: unknown;
    }>(run);
    expect(report).toMatchObject({ deletedEvents: 1, deletedHandlerRuns: 1, processedDays: 30 });
    expect(report.idempotency).toEqual({ keys: 0, calls: 0 });
    expect(await rowOf(old.id)).toBeNull();
  });

  it('purges settled events only, refusing the dedup window unless forced', async () => {
    const refused = await cli(['events', 'purge', ...connection, '--older-than', '1d']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/reaches into the dedup window of 7 days/);

    const counts = () =>
      transactions.run(async (manager) => ({
        settled: await manager.countBy(WebhookEventEntity, { status: 'processed' }),
        dead: await manager.countBy(WebhookEventEntity, { status: 'dead' }),
      }));
    const before = await counts();
    expect(before.settled).toBeGreaterThan(0);
    expect(before.dead).toBeGreaterThan(0);
    const future = new Date(Date.now() + 60_000).toISOString();

    const dryRun = await cli([
      'events',
      'purge',
      ...connection,
      '--older-than',
      future,
      '--force',
      '--dry-run',
      '--json',
    ]);
    expect(json<{ wouldDelete: number }>(dryRun).wouldDelete).toBe(before.settled);
    expect(await counts()).toEqual(before);

    const purged = await cli(['events', 'purge', ...connection, '--older-than', future, '--force']);
    expect(purged.code).toBe(0);
    expect(purged.stdout).toMatch(
      new RegExp(`Deleted ${before.settled} processed/ignored event\\(s\\)`),
    );
    expect(await counts()).toEqual({ settled: 0, dead: before.dead });
  });
});

describe('sign and send for every provider', () => {
  const SQUARE_URL = 'https://shop.example.com/webhooks/square';
  const PADDLE_SECRET = 'pdl_ntfset_01hv8x2acma2gz8he1ffw2b4q8_cli';
  const ADYEN_KEY = '44782DEF547AAA06C910C43932B1EB0C71FC68D9D0C058550B7BDC2ACBB5FE42';
  const STANDARD_SECRET = `whsec_${Buffer.from('cli-standard-secret').toString('base64')}`;
  let app: TestApp;

  // NOTE: every provider folder's test kit gives an endpoint and what `send` takes for it; the
  // generic HMAC scheme is sent once more with every option it has.
  const endpoints: WebhookEndpoint[] = [
    ...PROVIDER_KITS.map((kit) => kit.endpoint(kit.kind)),
    hmacEndpoint({
      name: 'hmac-github',
      secret: 'hmac-cli-secret',
      signatureHeader: 'x-hub-signature-256',
      signaturePrefix: 'sha256=',
      timestampHeader: 'x-timestamp',
    }),
  ];

  beforeAll(async () => {
    app = await startTestApp({
      platform: 'express',
      database: 'sqlite',
      webhooks: { endpoints, dispatch: { enabled: false } },
    });
  });

  afterAll(() => app.close());

  const orderId = () => `order-${randomUUID().slice(0, 8)}`;

  /** A delivery `send` makes: where to, as which kind, the payload, the flags, what is stored. */
  interface SendCase {
    endpoint: string;
    kind: string;
    payload(orderId: string): unknown;
    flags: readonly string[];
    expected?(orderId: string): { type: string; merchantRef?: string; eventId?: string };
    method?: 'GET' | 'POST';
  }
  const cases: [string, SendCase][] = [
    ...PROVIDER_KITS.map((kit): [string, SendCase] => [
      kit.kind,
      { endpoint: kit.kind, kind: kit.kind, ...kit.cli },
    ]),
    [
      'hmac with a header, a prefix and a signed time',
      {
        endpoint: 'hmac-github',
        kind: 'hmac',
        payload: (order) => ({
          id: `evt_${randomUUID()}`,
          type: 'payment.succeeded',
          data: { orderId: order },
        }),
        flags: [
          '--secret',
          'hmac-cli-secret',
          '--signature-header',
          'x-hub-signature-256',
          '--signature-prefix',
          'sha256=',
          '--timestamp-header',
          'x-timestamp',
        ],
      },
    ],
    [
      'sber by GET',
      {
        endpoint: 'sber',
        kind: 'sber',
        payload: (order) => sberFixtures.deposited({ orderNumber: order, amount: 19200 }),
        flags: ['--secret', 'sber-provider-kit-token'],
        method: 'GET',
      },
    ],
    [
      'sber by POST',
      {
        endpoint: 'sber',
        kind: 'sber',
        payload: (order) => sberFixtures.approved({ orderNumber: order }),
        flags: ['--secret', 'sber-provider-kit-token', '--method', 'POST'],
        method: 'POST',
      },
    ],
  ];

  it('covers every provider the CLI signs for', async () => {
    const help = await cli(['sign', '--help']);
    const kinds = [...help.stdout.matchAll(/^ {2}([a-z-]+) — /gm)].map((match) => match[1]);
    expect(kinds.sort()).toEqual(PROVIDER_KITS.map((kit) => kit.kind).sort());
  });

  it.each(cases)('sends a delivery (%s) the endpoint verifies and stores', async (_label, sent) => {
    const order = orderId();
    const file = payloadFile(sent.payload(order) as object);
    const repository = app.dataSource.getRepository(WebhookEventEntity);
    const before = await repository.countBy({ endpoint: sent.endpoint });
    const result = await cli([
      'send',
      `${app.url}/webhooks/${sent.endpoint}`,
      '--provider',
      sent.kind,
      ...sent.flags,
      '--file',
      file,
      '--json',
    ]);
    const answer = json<{ ok: boolean; status: number; delivery: { method: string } }>(result);
    expect({ code: result.code, ok: answer.ok, stderr: result.stderr }).toEqual({
      code: 0,
      ok: true,
      stderr: '',
    });
    if (sent.method) expect(answer.delivery.method).toBe(sent.method);
    expect(await repository.countBy({ endpoint: sent.endpoint })).toBe(before + 1);
    const expected = sent.expected?.(order);
    if (expected?.merchantRef !== undefined || expected?.eventId !== undefined) {
      const stored = await repository.findOneByOrFail({
        endpoint: sent.endpoint,
        ...(expected.eventId === undefined ? {} : { eventId: expected.eventId }),
        ...(expected.merchantRef === undefined ? {} : { merchantRef: expected.merchantRef }),
      });
      expect(stored.type).toBe(expected.type);
    }
  });

  it("signs what the providers' own SDKs accept", async () => {
    const sign = async (kind: string, payload: object | string, flags: string[]) => {
      const result = await cli([
        'sign',
        '--provider',
        kind,
        ...flags,
        '--file',
        payloadFile(payload),
        '--json',
      ]);
      expect(result.code).toBe(0);
      return json<{ body: string; headers: Record<string, string> }>(result);
    };
    const standard = await sign('standard', { type: 'payment.succeeded' }, [
      '--secret',
      STANDARD_SECRET,
      '--id',
      'msg_cli_1',
    ]);
    expect(new Webhook(STANDARD_SECRET).verify(standard.body, standard.headers)).toEqual({
      type: 'payment.succeeded',
    });
    expect(standard.headers['webhook-id']).toBe('msg_cli_1');

    const paddle = await sign('paddle', paddleFixtures.transactionCompleted(), [
      '--secret',
      PADDLE_SECRET,
    ]);
    await expect(
      new Paddle('pdl_sdbx_apikey_01hv8x2acma2gz8he1ffw2b4q8_test').webhooks.isSignatureValid(
        paddle.body,
        PADDLE_SECRET,
        paddle.headers['paddle-signature'],
      ),
    ).resolves.toBe(true);

    const square = await sign('square', squareFixtures.paymentUpdated(), [
      '--secret',
      'square-cli-key',
      '--notification-url',
      SQUARE_URL,
    ]);
    await expect(
      WebhooksHelper.verifySignature({
        requestBody: square.body,
        signatureHeader: square.headers['x-square-hmacsha256-signature'],
        signatureKey: 'square-cli-key',
        notificationUrl: SQUARE_URL,
      }),
    ).resolves.toBe(true);

    const adyen = await sign(
      'adyen',
      {
        live: 'false',
        notificationItems: [{ NotificationRequestItem: adyenNotificationItem('CAPTURE') }],
      },
      ['--secret', ADYEN_KEY],
    );
    const [item] = (
      JSON.parse(adyen.body) as {
        notificationItems: { NotificationRequestItem: NotificationRequestItem }[];
      }
    ).notificationItems;
    expect(new hmacValidator().validateHMAC(item.NotificationRequestItem, ADYEN_KEY)).toBe(true);

    const sber = await cli([
      'sign',
      '--provider',
      'sber',
      '--secret',
      'sber-cli-token',
      '--file',
      payloadFile(sberFixtures.deposited({ orderNumber: '2003' })),
    ]);
    expect(sber.stdout).toMatch(/^GET \?mdOrder=.*&checksum=[0-9A-F]{64}\n$/);
  });

  it('refuses options a provider does not take, and bad payload files, with exit code 2', async () => {
    const file = payloadFile(stripeEvent().body);
    const cases: [string[], RegExp][] = [
      [
        ['--provider', 'stripe', '--secret', SECRET, '--webhook-id', 'x'],
        /stripe does not take --webhook-id/,
      ],
      [['--provider', 'paypal', '--secret', 'x'], /paypal takes no --secret/],
      [['--provider', 'paypal'], /paypal needs --webhook-id/],
      [['--provider', 'tbank', '--secret', 'p', '--timestamp', '1'], /tbank signs no time/],
      [['--provider', 'square', '--secret', 'k'], /square needs --notification-url/],
      [
        ['--provider', 'sber', '--secret', 't', '--private-key', 'k.pem'],
        /exactly one of --secret/,
      ],
      [['--provider', 'adyen', '--secret', 'xyz'], /HMAC key in hex/],
      [['--provider', 'acme', '--secret', 's'], /unknown --provider "acme"/],
      [
        ['--provider', 'stripe', '--secret-env', 'NOT_SET'],
        /--secret-env NOT_SET: the variable is not set/,
      ],
    ];
    for (const [flags, message] of cases) {
      const result = await cli(['sign', ...flags, '--file', file]);
      expect({ code: result.code, stderr: result.stderr }).toEqual({
        code: 2,
        stderr: expect.stringMatching(message),
      });
    }
    const bad = await cli([
      'sign',
      '--provider',
      'qvard',
      '--secret',
      's',
      '--file',
      payloadFile('{"id": '),
    ]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/is not valid JSON/);
    const absent = await cli([
      'sign',
      '--provider',
      'qvard',
      '--secret',
      's',
      '--file',
      join(WORK, 'absent.json'),
    ]);
    expect(absent.stderr).toMatch(/cannot read --file .*absent\.json: ENOENT/);

    const stdin = await cli(
      ['sign', '--provider', 'qvard', '--secret', 's', '--file', '-', '--json'],
      {},
      '{"id":"o-1","status":"completed"}\n',
    );
    expect(json<{ body: string }>(stdin).body).toBe('{"id":"o-1","status":"completed"}');
  });
});
