import { AddressInfo } from 'node:net';
import { Server } from 'node:http';
import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import express from 'express';
import { DataSource } from 'typeorm';
import {
  OnPaymentEvent,
  PaymentEvent,
  stripeEndpoint,
  WebhookAlert,
  WebhooksHealthIndicator,
  WebhooksModuleOptions,
} from 'nestjs-payment-webhooks';
import type { WebhookHandlerDefinition } from 'nestjs-payment-webhooks/express';
import { CliResult, runCli } from '../support/cli';
import { post } from '../support/http';
import { WebhookEventEntity } from '../support/internals';
import { RecordingLogger } from '../support/recording-logger';
import { startRouterApp, testHandlerDefinitions } from '../support/router-app';
import { SignedStripeEvent, signedStripeEvent, stripeEventId } from '../support/stripe-event';
import { eventually, HandlerControl, startTestApp, TestPaymentHandlers } from '../support/test-app';

/**
 * Every command and route the package prints as a hint runs as printed: the alerts' (a first
 * failure, a dead letter of one cause and of several, a recovery), the health report's dead
 * letters and the startup log's pauses of dispatch. Each `npx nestjs-payment-webhooks …` between
 * backticks is run by the CLI on the app's SQLite file, each `GET|POST /webhooks-admin/…`
 * (with the JSON body printed after it) is sent to the admin routes at their default path, on
 * the Nest module and on the Express admin router. A handler named with a space shows that the
 * names are quoted for the shell.
 */

const SECRET = 'whsec_hints';
const TOKEN = 'hints-token';
const CLI_HINT = /`npx nestjs-payment-webhooks ([^`]+)`/g;
const ROUTE_HINT = /`(GET|POST) \/webhooks-admin(\/[^`\s]*)(?: ([^`]+))?`/g;

/** Events whose receipt handler fails, until the cause is fixed. */
const failingReceipts = new Set<string>();

async function sendReceipt(event: PaymentEvent): Promise<void> {
  if (failingReceipts.has(event.eventId)) {
    throw new TypeError('receipt service down');
  }
}

@Injectable()
class ReceiptHandlers {
  @OnPaymentEvent('payment.succeeded')
  async onReceipt(event: PaymentEvent): Promise<void> {
    await sendReceipt(event);
  }
}

@Injectable()
class AdminTokenGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const request = context.switchToHttp().getRequest<{ headers: Record<string, unknown> }>();
    return request.headers['x-admin-token'] === TOKEN;
  }
}

/** The app whose hints are run, whichever entrance serves it. */
interface HintsApp {
  webhooks: string;
  /** The admin routes at their default path, `/webhooks-admin`. */
  admin: string;
  sqliteFile: string;
  dataSource: DataSource;
  control: HandlerControl;
  alerts: WebhookAlert[];
  handlers: { payments: string; receipts: string };
  /** The problems the health report names. */
  problems(): Promise<readonly string[]>;
  /** Starts another instance on the same file and returns what it warns of as it starts. */
  startupWarnings(): Promise<string[]>;
  close(): Promise<void>;
}

function webhooksOptions(alerts: WebhookAlert[]): WebhooksModuleOptions {
  return {
    endpoints: [stripeEndpoint({ name: 'stripe', secret: SECRET })],
    dispatch: { pollIntervalMs: 20, retry: { maxAttempts: 2, baseDelayMs: 10, maxDelayMs: 20 } },
    observability: {
      alerts: { onAlert: (alert) => void alerts.push(alert) },
      health: { maxDeadLetters: 0 },
    },
  };
}

const pausedLines = (logger: RecordingLogger) =>
  logger.lines.map((line) => line.text).filter((text) => text.includes('Dispatch is paused'));

async function nestHintsApp(): Promise<HintsApp> {
  const alerts: WebhookAlert[] = [];
  const start = (options: Partial<Parameters<typeof startTestApp>[0]>) =>
    startTestApp({
      platform: 'express',
      database: 'sqlite',
      handlers: [TestPaymentHandlers, ReceiptHandlers],
      extras: { admin: { guards: [AdminTokenGuard] } },
      webhooks: webhooksOptions(alerts),
      ...options,
    });
  const app = await start({});
  return {
    webhooks: `${app.url}/webhooks/stripe`,
    admin: `${app.url}/webhooks-admin`,
    sqliteFile: app.sqliteFile!,
    dataSource: app.dataSource,
    control: app.control,
    alerts,
    handlers: { payments: 'TestPaymentHandlers.onPayment', receipts: 'ReceiptHandlers.onReceipt' },
    problems: async () => (await app.app.get(WebhooksHealthIndicator).checkHealth()).problems,
    async startupWarnings() {
      const logger = new RecordingLogger();
      const other = await start({
        sqliteFile: app.sqliteFile,
        logger,
        webhooks: webhooksOptions([]),
      });
      try {
        await eventually(() => pausedLines(logger).length > 0);
        return pausedLines(logger);
      } finally {
        await other.close();
      }
    },
    close: () => app.close(),
  };
}

async function routerHintsApp(): Promise<HintsApp> {
  const alerts: WebhookAlert[] = [];
  const control = new HandlerControl();
  const handlers: WebhookHandlerDefinition[] = [
    ...testHandlerDefinitions(control),
    { on: 'payment.succeeded', name: 'send receipt', handle: (event) => sendReceipt(event) },
  ];
  const t = await startRouterApp({
    database: 'sqlite',
    control,
    handlers,
    webhooks: webhooksOptions(alerts),
  });
  const admin = express();
  admin.use(
    '/webhooks-admin',
    t.router.adminRouter({ authorize: (request) => request.headers['x-admin-token'] === TOKEN }),
  );
  const server = await new Promise<Server>((resolve) => {
    const listening: Server = admin.listen(0, '127.0.0.1', () => resolve(listening));
  });
  return {
    webhooks: `${t.url}/webhooks/stripe`,
    admin: `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks-admin`,
    sqliteFile: t.sqliteFile!,
    dataSource: t.dataSource,
    control,
    alerts,
    handlers: { payments: 'payments', receipts: 'send receipt' },
    problems: async () => (await t.router.health()).problems,
    async startupWarnings() {
      const logger = new RecordingLogger();
      const other = await startRouterApp({
        database: 'sqlite',
        sqliteFile: t.sqliteFile,
        handlers,
        webhooks: { ...webhooksOptions([]), logger },
      });
      try {
        await eventually(() => pausedLines(logger).length > 0);
        return pausedLines(logger);
      } finally {
        await other.stop();
      }
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await t.close();
    },
  };
}

/** A command line as a POSIX shell splits it: single quotes, and `\'` between them. */
function shellWords(command: string): string[] {
  const words: string[] = [];
  let word: string | undefined;
  for (const [, quoted, escaped, space, plain] of command.matchAll(
    /'([^']*)'|\\(.)|(\s+)|([^\s'\\]+)/g,
  )) {
    if (space !== undefined) {
      if (word !== undefined) {
        words.push(word);
      }
      word = undefined;
    } else {
      word = (word ?? '') + (quoted ?? escaped ?? plain);
    }
  }
  return word === undefined ? words : [...words, word];
}

/** One hint as printed: a CLI command, or a route with its method and body. */
type Hint =
  | { kind: 'cli'; text: string; args: string[] }
  | { kind: 'route'; text: string; method: 'GET' | 'POST'; path: string; body?: string };

/** The hints in `texts`, each once, in the order printed. */
function hintsIn(texts: readonly string[], placeholders: Record<string, string> = {}): Hint[] {
  const hints = new Map<string, Hint>();
  for (const original of texts) {
    const text = Object.entries(placeholders).reduce(
      (result, [name, value]) => result.split(name).join(value),
      original,
    );
    for (const [whole, command] of text.matchAll(CLI_HINT)) {
      hints.set(whole, { kind: 'cli', text: whole, args: shellWords(command) });
    }
    for (const [whole, method, path, body] of text.matchAll(ROUTE_HINT)) {
      hints.set(whole, {
        kind: 'route',
        text: whole,
        method: method as 'GET' | 'POST',
        path,
        body,
      });
    }
  }
  return [...hints.values()];
}

describe.each<[string, () => Promise<HintsApp>]>([
  ['the Nest module', nestHintsApp],
  ['the Express router', routerHintsApp],
])('the hints %s prints', (_name, start) => {
  let app: HintsApp;
  let env: Record<string, string>;
  const ran = new Set<string>();

  beforeAll(async () => {
    app = await start();
    env = { DATABASE_URL: `sqlite:${app.sqliteFile}` };
  }, 300_000);
  afterAll(async () => {
    failingReceipts.clear();
    await app?.close();
  });

  async function runHint(hint: Hint): Promise<CliResult> {
    if (hint.kind !== 'cli') {
      throw new Error(`not a command: ${hint.text}`);
    }
    ran.add(hint.text);
    const result = await runCli(hint.args, { env });
    const errors = result.stderr.split('\n').filter((line) => line.includes(': error:'));
    expect({ hint: hint.text, code: result.code, errors }).toEqual({
      hint: hint.text,
      code: 0,
      errors: [],
    });
    return result;
  }

  async function sendHint<T = Record<string, unknown>>(
    hint: Hint,
    expected = hint.kind === 'route' && /^\/replays\?/.test(hint.path) ? 202 : 200,
  ): Promise<T> {
    if (hint.kind !== 'route') {
      throw new Error(`not a route: ${hint.text}`);
    }
    ran.add(hint.text);
    const response = await fetch(`${app.admin}${hint.path}`, {
      method: hint.method,
      headers: {
        'x-admin-token': TOKEN,
        ...(hint.method === 'POST' ? { 'content-type': 'application/json' } : {}),
      },
      body: hint.body,
    });
    const body = (await response.json()) as T;
    expect({ hint: hint.text, status: response.status, body }).toEqual({
      hint: hint.text,
      status: expected,
      body,
    });
    return body;
  }

  async function deliver(script: { receipt?: boolean } = {}): Promise<SignedStripeEvent> {
    const id = stripeEventId();
    const event = signedStripeEvent(SECRET, {
      id,
      orderId: `o-${id}`,
      amount: 900,
      currency: 'eur',
    });
    app.control.scripts.set(event.id, { alwaysFail: true });
    if (script.receipt) {
      failingReceipts.add(event.id);
    }
    expect((await post(app.webhooks, event.body, event.headers)).status).toBe(200);
    return event;
  }

  async function allDead(...events: SignedStripeEvent[]): Promise<string[]> {
    const rows = app.dataSource.getRepository(WebhookEventEntity);
    await eventually(async () =>
      (await Promise.all(events.map((event) => rows.findOneBy({ eventId: event.id })))).every(
        (row) => row?.status === 'dead',
      ),
    );
    return Promise.all(
      events.map(async (event) => (await rows.findOneByOrFail({ eventId: event.id })).id),
    );
  }

  const alertsOf = <K extends WebhookAlert['kind']>(kind: K) =>
    app.alerts.filter((alert): alert is Extract<WebhookAlert, { kind: K }> => alert.kind === kind);

  it('runs every command and route of the alerts, the health report and the startup log', async () => {
    // One event dies of its payment handler alone, another of both handlers.
    const single = await deliver();
    await allDead(single);
    const both = await deliver({ receipt: true });
    const [singleId, bothId] = await allDead(single, both);
    await eventually(() => alertsOf('dead_letter').length === 2);
    const failing = alertsOf('handler_failing');
    expect(failing.map((alert) => alert.handler)).toEqual([
      app.handlers.payments,
      app.handlers.receipts,
    ]);
    const [payments, receipts] = failing.map((alert) => alert.fingerprint);
    const [oneCause, twoCauses] = alertsOf('dead_letter');
    expect(oneCause).toMatchObject({ id: singleId, fingerprints: [payments] });
    expect(twoCauses).toMatchObject({ id: bothId });
    expect([...twoCauses.fingerprints].sort()).toEqual([payments, receipts].sort());
    await eventually(async () => (await app.problems()).some((text) => text.includes('dead')));
    const deadProblem = (await app.problems()).find((text) => text.includes('events are dead'))!;

    const hints = hintsIn(
      [...failing, oneCause, twoCauses].map((alert) => alert.message).concat(deadProblem),
      { '<fingerprint>': payments },
    );
    // Per group: see it, dry run, replay, and the same three over HTTP, and pause it on both.
    // The event of two causes: see it and replay it on both. The health report: the groups.
    expect(hints.map((hint) => hint.kind).sort()).toEqual([
      ...Array<string>(2 * 4 + 2 + 1).fill('cli'),
      ...Array<string>(2 * 4 + 2 + 1).fill('route'),
    ]);
    const cli = (test: (args: string[]) => boolean) =>
      hints.filter(
        (hint): hint is Extract<Hint, { kind: 'cli' }> => hint.kind === 'cli' && test(hint.args),
      );
    const routes = (test: (method: string, path: string) => boolean) =>
      hints.filter(
        (hint): hint is Extract<Hint, { kind: 'route' }> =>
          hint.kind === 'route' && test(hint.method, hint.path),
      );

    // Looking changes nothing: groups, an event, dry runs.
    for (const hint of cli((args) => args[1] === 'groups')) {
      const group = hint.args[hint.args.indexOf('--group') + 1];
      expect((await runHint(hint)).stdout).toMatch(
        hint.args.includes('--group')
          ? new RegExp(`^\\d+\\s+\\d+\\s+stripe\\s.*${group}`, 'm')
          : /^COUNT\s+DEAD/,
      );
    }
    for (const hint of cli((args) => args[1] === 'show')) {
      expect((await runHint(hint)).stdout).toMatch(new RegExp(`^Event ${bothId}\n`));
    }
    for (const hint of cli((args) => args.includes('--dry-run'))) {
      expect((await runHint(hint)).stdout).toMatch(
        /^Would replay [12] event\(s\); nothing was changed\./,
      );
    }
    for (const hint of routes((method, path) => method === 'GET' || path.includes('dryRun=true'))) {
      const body = await sendHint<unknown>(hint);
      if (hint.path.startsWith('/groups?fingerprint=')) {
        expect(body).toEqual([expect.objectContaining({ fingerprint: hint.path.split('=')[1] })]);
      } else if (hint.path.startsWith('/events/')) {
        expect(body).toMatchObject({ event: { id: bothId } });
      } else if (hint.path.startsWith('/replay?')) {
        expect(body).toMatchObject({ replayed: 0, wouldReplay: expect.any(Number) });
      }
    }

    // The event that died of two causes, by its id.
    const [replayOne] = cli((args) => args[1] === 'replay' && args[2] === bothId);
    expect((await runHint(replayOne)).stdout).toMatch(/put back in the inbox/);
    await allDead(both);
    const [redeliver] = routes((_method, path) => path.endsWith('/redeliver'));
    expect(await sendHint(redeliver)).toEqual({ redelivered: bothId });
    await allDead(both);

    // A group, from the CLI and in the background.
    for (const hint of cli(
      (args) => args[1] === 'replay' && args[2] === '--group' && !args.includes('--dry-run'),
    )) {
      expect((await runHint(hint)).stdout).toMatch(/^Replayed [12] event\(s\)/);
      await allDead(single, both);
    }
    for (const hint of routes((_method, path) => path.startsWith('/replays?'))) {
      const job = await sendHint<{ id: string; total: number }>(hint);
      expect(job.total).toBeGreaterThan(0);
      await eventually(async () => {
        const response = await fetch(`${app.admin}/replays/${job.id}`, {
          headers: { 'x-admin-token': TOKEN },
        });
        return ((await response.json()) as { status: string }).status === 'done';
      }, 15_000);
      await allDead(single, both);
    }

    // Pause each failing handler from the CLI; the route's body names the same scope.
    const pauseRoutes = routes((_method, path) => path === '/pause');
    expect(pauseRoutes).toHaveLength(2);
    for (const hint of cli((args) => args[0] === 'pause')) {
      expect((await runHint(hint)).stdout).toMatch(/^Paused dispatch of endpoint stripe, handler /);
    }
    for (const hint of pauseRoutes) {
      expect(await sendHint(hint)).toMatchObject({ paused: false, endpoint: 'stripe' });
    }

    // The startup log names each pause and how to lift it.
    const warnings = await app.startupWarnings();
    expect(warnings).toHaveLength(2);
    const lifts = hintsIn(warnings);
    for (const hint of lifts.filter((entry) => entry.kind === 'cli')) {
      expect((await runHint(hint)).stdout).toMatch(
        /^Resumed dispatch of endpoint stripe, handler /,
      );
    }
    for (const hint of pauseRoutes) {
      expect(await sendHint(hint)).toMatchObject({ paused: true });
    }
    for (const hint of lifts.filter((entry) => entry.kind === 'route')) {
      expect(await sendHint(hint)).toMatchObject({
        resumed: expect.any(Number),
        endpoint: 'stripe',
      });
    }
    const pauses = await fetch(`${app.admin}/pauses`, { headers: { 'x-admin-token': TOKEN } });
    expect(await pauses.json()).toEqual([]);

    // Fixed: the handlers succeed again, and the recovery names what still waits.
    await allDead(single, both);
    app.control.scripts.clear();
    failingReceipts.clear();
    const before = alertsOf('handler_recovered').length;
    expect(await sendHint(redeliver)).toEqual({ redelivered: bothId });
    await eventually(() =>
      alertsOf('handler_recovered')
        .slice(before)
        .some((alert) => alert.handler === app.handlers.payments),
    );
    const recovered = hintsIn(alertsOf('handler_recovered').map((alert) => alert.message));
    expect(recovered.map((hint) => hint.text)).toEqual([
      '`npx nestjs-payment-webhooks events groups --status dead`',
      '`GET /webhooks-admin/groups?status=dead`',
    ]);
    expect((await runHint(recovered[0])).stdout).toMatch(/^COUNT\s+DEAD/);
    expect(await sendHint<unknown[]>(recovered[1])).toEqual([
      expect.objectContaining({ endpoint: 'stripe' }),
    ]);

    expect([...hints, ...lifts].filter((hint) => !ran.has(hint.text))).toEqual([]);
  }, 120_000);
});
