import { stripeEndpoint, WebhookAdmin } from 'nestjs-payment-webhooks';
import { cliJson, CliResult, runCli } from '../support/cli';
import { post } from '../support/http';
import { parkedByPause } from '../support/inbox-state';
import { WebhookEventEntity } from '../support/internals';
import { SignedStripeEvent, signedStripeEvent, stripeEventId } from '../support/stripe-event';
import { countEffects, Database, eventually, startTestApp, TestApp } from '../support/test-app';
import { AdminOpsApp, nestOpsApp, routerOpsApp, SECRET, TOKEN } from './admin-operations.apps';

/**
 * Pause, resume, replay and discard refuse an endpoint or a handler none of the known ones is
 * (a typo), naming the known ones and the nearest, and change nothing: over the admin routes
 * (the Nest module's controller and the Express admin router: a 400) and from the CLI (exit
 * code 1). The app knows its configured endpoints and registered handlers; the CLI reads the
 * database only, and knows the names it records. A pause of an endpoint since removed from the
 * configuration can still be lifted, and a retired endpoint's events still discarded.
 */

const json = { 'content-type': 'application/json' };

interface Answer<T> {
  status: number;
  body: T;
}

interface Refusal {
  statusCode: number;
  message: string;
}

interface Pause {
  endpoint: string;
  handler: string;
}

/** Both endpoints the first app configures; the second keeps `stripe` only. */
const withLegacy = [
  stripeEndpoint({ name: 'stripe', secret: SECRET }),
  stripeEndpoint({ name: 'legacy', secret: SECRET }),
];

function payment(): SignedStripeEvent {
  const id = stripeEventId();
  return signedStripeEvent(SECRET, { id, orderId: `o-${id}`, amount: 700, currency: 'eur' });
}

/** `name` with two neighbouring letters swapped: a typo of it. */
function typoOf(name: string): string {
  const at = name.length - 3;
  return `${name.slice(0, at)}${name[at + 1]}${name[at]}${name.slice(at + 2)}`;
}

describe.each<[string, (options?: Parameters<typeof nestOpsApp>[2]) => Promise<AdminOpsApp>]>([
  ['the Nest module on Express and SQLite', (options) => nestOpsApp('express', 'sqlite', options)],
  [
    'the Nest module on Fastify and PostgreSQL',
    (options) => nestOpsApp('fastify', 'postgres', options),
  ],
  ['the Express admin router on SQLite', (options) => routerOpsApp('sqlite', true, options)],
  ['the Express admin router on PostgreSQL', (options) => routerOpsApp('postgres', false, options)],
])('names checked by the admin routes of %s', (_name, start) => {
  let app: AdminOpsApp;
  /** The app as it was, before `legacy` left its configuration: its database is the one used. */
  let before: AdminOpsApp;
  /** An event of `legacy`, dead, stored before `legacy` left the configuration. */
  let retired: SignedStripeEvent;

  async function call<T = Record<string, unknown>>(
    method: 'GET' | 'POST',
    path: string,
    body: unknown = {},
  ): Promise<Answer<T>> {
    const response = await fetch(`${app.admin}/${path}`, {
      method,
      headers: { 'x-admin-token': TOKEN, ...(method === 'POST' ? json : {}) },
      body: method === 'POST' ? JSON.stringify(body) : undefined,
    });
    return { status: response.status, body: (await response.json()) as T };
  }

  async function rowOf(event: SignedStripeEvent): Promise<WebhookEventEntity> {
    return app.dataSource.getRepository(WebhookEventEntity).findOneByOrFail({ eventId: event.id });
  }

  async function settledAs(status: string, event: SignedStripeEvent): Promise<void> {
    await eventually(async () => (await rowOf(event)).status === status);
  }

  async function deliver(event: SignedStripeEvent, endpoint = 'stripe'): Promise<void> {
    const url = app.webhooks.replace(/\/stripe$/, `/${endpoint}`);
    expect((await post(url, event.body, event.headers)).status).toBe(200);
  }

  async function refused(path: string, body: unknown, rule: RegExp): Promise<void> {
    const answer = await call<Refusal>('POST', path, body);
    expect(answer.status).toBe(400);
    expect(answer.body.message).toMatch(rule);
  }

  beforeAll(async () => {
    // The app as it was: `legacy` configured, one of its events dead, and a pause of it.
    before = await start({ endpoints: withLegacy });
    app = before;
    retired = payment();
    before.control.scripts.set(retired.id, { alwaysFail: true });
    await deliver(retired, 'legacy');
    await settledAs('dead', retired);
    expect((await call('POST', 'pause', { endpoint: 'legacy', reason: 'retiring' })).status).toBe(
      200,
    );
    await before.stop();
    // Deployed again without `legacy`.
    app = await start({ databaseOf: before });
  });

  afterAll(async () => {
    await app?.close();
    await before?.close();
  });

  it('refuses to pause an unknown endpoint or handler, naming the known ones, and pauses nothing', async () => {
    const { payments, refunds } = app.handlers;
    await refused(
      'pause',
      { endpoint: 'strpe' },
      /^No endpoint is named "strpe" \(did you mean "stripe"\?\); the configured endpoints: stripe\. Nothing was paused\.$/,
    );
    const handlerTypo = await call<Refusal>('POST', 'pause', { handler: typoOf(payments) });
    expect(handlerTypo.status).toBe(400);
    expect(handlerTypo.body.message).toContain(
      `No handler is named "${typoOf(payments)}" (did you mean "${payments}"?); the registered handlers`,
    );
    expect(handlerTypo.body.message).toContain(`: ${[payments, refunds].sort().join(', ')}.`);
    await refused('pause', { endpoint: 'stripe', handler: 'Nobody.here' }, /"Nobody.here"/);
    // No longer configured: pausing it would hold nothing.
    await refused('pause', { endpoint: 'legacy' }, /No endpoint is named "legacy"/);

    const pauses = await call<Pause[]>('GET', 'pauses');
    expect(pauses.body.map((pause) => [pause.endpoint, pause.handler])).toEqual([['legacy', '*']]);
    const event = payment();
    await deliver(event);
    await settledAs('processed', event);
    expect(await countEffects(app, event.id)).toBe(1);
  });

  it('pauses and resumes a configured endpoint and handler named rightly', async () => {
    const paused = await call('POST', 'pause', {
      endpoint: 'stripe',
      handler: app.handlers.payments,
    });
    expect(paused).toEqual({
      status: 200,
      body: { paused: true, endpoint: 'stripe', handler: app.handlers.payments },
    });
    // NOTE: a pause made through this app's admin holds its own dispatcher at once.
    const held = payment();
    await deliver(held);
    await eventually(() => parkedByPause(app.dataSource, held.id));
    expect(await countEffects(app, held.id)).toBe(0);
    const resumed = await call('POST', 'resume', {
      endpoint: 'stripe',
      handler: app.handlers.payments,
    });
    expect(resumed.status).toBe(200);
    await settledAs('processed', held);
    expect(await countEffects(app, held.id)).toBe(1);
  });

  it('resumes the pause of an endpoint no longer configured, and refuses a name none knows', async () => {
    await refused(
      'resume',
      { endpoint: 'legcy' },
      /^No endpoint is named "legcy" \(did you mean "legacy"\?\); the configured endpoints and those of the pauses in force: legacy, stripe\. Nothing was resumed\.$/,
    );
    expect((await call<Pause[]>('GET', 'pauses')).body).toHaveLength(1);
    const resumed = await call('POST', 'resume', { endpoint: 'legacy' });
    expect(resumed).toEqual({
      status: 200,
      body: { resumed: 0, endpoint: 'legacy', handler: '*' },
    });
    expect((await call<Pause[]>('GET', 'pauses')).body).toEqual([]);
  });

  it('refuses a replay or a discard naming an unknown endpoint or handler, changing nothing', async () => {
    const dead = payment();
    app.control.scripts.set(dead.id, { alwaysFail: true });
    await deliver(dead);
    await settledAs('dead', dead);
    const handler = typoOf(app.handlers.payments);

    await refused(
      'replay?endpoint=strpe',
      {},
      /^No endpoint is named "strpe" \(did you mean "stripe"\?\); the configured endpoints and those of stored events: legacy, stripe\. Nothing was replayed\.$/,
    );
    await refused('replay?endpoint=strpe&dryRun=true', {}, /No endpoint is named "strpe"/);
    await refused(`replay?handler=${handler}`, {}, /Nothing was replayed\.$/);
    await refused('replays?endpoint=strpe&rate=5', {}, /No endpoint is named "strpe"/);
    await refused(`replays?handler=${handler}`, {}, /did you mean/);
    await refused(
      `discard?handler=${handler}`,
      { reason: 'never' },
      /^No handler is named ".*" \(did you mean ".*"\?\); the registered handlers .*Nothing was discarded\.$/,
    );
    await refused('discard?endpoint=strpe', { reason: 'never' }, /Nothing was discarded\.$/);

    // NOTE: each refusal was answered before anything would have run, a replay in the
    // background included, which would be listed.
    expect((await call('GET', 'replays')).body).toEqual([]);
    expect((await rowOf(dead)).status).toBe('dead');
    const shown = await call<{ history: { kind: string }[] }>(
      'GET',
      `events/${(await rowOf(dead)).id}`,
    );
    expect(shown.body.history.map((entry) => entry.kind)).toEqual(['attempt', 'attempt']);

    // Named rightly, the same commands run; the retired endpoint's events are known by the database.
    app.control.scripts.delete(dead.id);
    const replayed = await call(
      'POST',
      `replay?endpoint=stripe&handler=${encodeURIComponent(app.handlers.payments)}`,
    );
    expect(replayed).toEqual({ status: 200, body: { replayed: 1 } });
    await settledAs('processed', dead);
    const discarded = await call('POST', 'discard?endpoint=legacy', { reason: 'endpoint retired' });
    expect(discarded).toEqual({ status: 200, body: { discarded: 1 } });
    expect((await rowOf(retired)).status).toBe('ignored');
  });
});

describe.each<Database>(['sqlite', 'postgres'])('names checked by the CLI on %s', (database) => {
  let app: TestApp;
  let admin: WebhookAdmin;
  let env: Record<string, string>;
  let dead: SignedStripeEvent;
  const PAYMENTS = 'TestPaymentHandlers.onPayment';
  const REFUNDS = 'TestPaymentHandlers.onRefund';

  beforeAll(async () => {
    app = await startTestApp({
      platform: 'express',
      database,
      webhooks: {
        endpoints: withLegacy,
        dispatch: {
          pollIntervalMs: 20,
          retry: { maxAttempts: 1, baseDelayMs: 10, maxDelayMs: 20 },
        },
      },
    });
    admin = app.app.get(WebhookAdmin);
    env = { DATABASE_URL: database === 'sqlite' ? `sqlite:${app.sqliteFile}` : app.databaseUrl! };
    dead = payment();
    app.control.scripts.set(dead.id, { alwaysFail: true });
    expect((await post(`${app.url}/webhooks/stripe`, dead.body, dead.headers)).status).toBe(200);
    await eventually(async () => (await admin.count({ eventId: dead.id, status: 'dead' })) === 1);
  }, 300_000);

  afterAll(() => app?.close());

  const cli = (args: string[]): Promise<CliResult> => runCli(args, { env });

  /** The CLI failed with exit code 1 and one line on stderr matching `rule`. */
  function expectRefused(result: CliResult, rule: RegExp): void {
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(rule);
  }

  it('refuses to pause an endpoint or handler the database has no record of, naming those it has', async () => {
    // NOTE: refusals change nothing, so they run side by side.
    const [endpointTypo, handlerTypo, neverRan] = await Promise.all([
      cli(['pause', '--endpoint', 'strpe']),
      cli(['pause', '--handler', typoOf(PAYMENTS)]),
      cli(['pause', '--handler', REFUNDS]),
    ]);
    expectRefused(
      endpointTypo,
      /^nestjs-payment-webhooks: error: No endpoint is named "strpe" \(did you mean "stripe"\?\); the endpoints the database records, of stored events and pauses \(the CLI reads the app's database, not its configuration\): stripe\. Nothing was paused\. One that has not run yet can be paused through the app's admin routes, which know its configuration\.\n$/,
    );
    expectRefused(
      handlerTypo,
      new RegExp(
        `No handler is named "${typoOf(PAYMENTS)}" \\(did you mean "${PAYMENTS}"\\?\\); the handlers the database records, in handler runs, failed attempts and pauses .*: ${PAYMENTS}\\. Nothing was paused\\.`,
      ),
    );
    // Configured, but it has never run: the CLI cannot know it, and says where it can be paused.
    expectRefused(
      neverRan,
      /No handler is named "TestPaymentHandlers.onRefund"; .*: TestPaymentHandlers.onPayment\. Nothing was paused\. .*admin routes/,
    );
    expect(cliJson(await cli(['pauses', '--json']))).toEqual([]);
  });

  it('pauses and resumes a recorded name, and resumes a pause whatever the configuration', async () => {
    const paused = await cli(['pause', '--endpoint', 'stripe', '--handler', PAYMENTS, '--json']);
    expect(paused.code).toBe(0);
    expect(cliJson(paused)).toMatchObject({ endpoint: 'stripe', handler: PAYMENTS, paused: true });
    expect((await cli(['resume', '--endpoint', 'stripe', '--handler', PAYMENTS])).code).toBe(0);

    // `legacy` has no event: a pause of it made by the app is in the database all the same.
    expect(await admin.pause({ endpoint: 'legacy' })).toBe(true);
    expectRefused(
      await cli(['resume', '--endpoint', 'legcy']),
      /No endpoint is named "legcy" \(did you mean "legacy"\?\); .*: legacy, stripe\. Nothing was resumed\./,
    );
    const resumed = await cli(['resume', '--endpoint', 'legacy', '--json']);
    expect(cliJson(resumed)).toEqual({ endpoint: 'legacy', handler: '*', resumed: true, woken: 0 });
    expect(await admin.pauses()).toEqual([]);
  });

  it('refuses a replay or a discard naming an unknown endpoint or handler, changing nothing', async () => {
    const handler = typoOf(PAYMENTS);
    const refusals = [
      ['events', 'replay', '--endpoint', 'strpe'],
      ['events', 'replay', '--endpoint', 'strpe', '--dry-run'],
      ['events', 'replay', '--handler', handler, '--rate', '5/s'],
      ['events', 'replay', '--endpoint', 'strpe', '--background'],
      ['events', 'discard', '--handler', handler, '--reason', 'never'],
      ['events', 'discard', '--endpoint', 'strpe', '--reason', 'never'],
    ];
    // NOTE: refusals change nothing, so they run side by side.
    for (const refused of await Promise.all(refusals.map(cli))) {
      expectRefused(refused, /No (endpoint|handler) is named ".*" \(did you mean ".*"\?\)/);
    }
    expect(await admin.replayJobs()).toEqual([]);
    const [event] = await admin.list({ eventId: dead.id });
    expect(event.status).toBe('dead');
    expect((await admin.show(event.id))!.history.map((entry) => entry.kind)).toEqual(['attempt']);

    app.control.scripts.delete(dead.id);
    const replayed = await cli([
      'events',
      'replay',
      '--endpoint',
      'stripe',
      '--handler',
      PAYMENTS,
      '--json',
    ]);
    expect(cliJson(replayed)).toEqual({ replayed: 1 });
    await eventually(
      async () => (await admin.list({ eventId: dead.id }))[0].status === 'processed',
    );
    expect(await countEffects(app, dead.id)).toBe(1);
  });
});
