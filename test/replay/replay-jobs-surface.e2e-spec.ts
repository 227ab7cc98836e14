import { randomUUID } from 'node:crypto';
import { stripeEndpoint, WebhookAdmin } from 'nestjs-payment-webhooks';
import { cliJson, CliResult, runCli } from '../support/cli';
import { post } from '../support/http';
import { WebhookEventEntity } from '../support/internals';
import { SignedStripeEvent, signedStripeEvent, stripeEventId } from '../support/stripe-event';
import { countEffects, Database, eventually, startTestApp, TestApp } from '../support/test-app';
import {
  AdminOpsApp,
  nestOpsApp,
  routerOpsApp,
  SECRET,
  TOKEN,
} from '../admin/admin-operations.apps';

/**
 * Replays in the background as an operator starts and follows them: over the admin routes
 * (`POST replays` answered 202, `GET replays`, `GET replays/:id`, `POST replays/:id/cancel`) of
 * the Nest module and of the Express admin router, and from the CLI (`events replay
 * --background`, `replays`, `replays show`, `replays cancel`) next to a running app on its
 * database. The app's instances run them; deliveries signed by Stripe's SDK, handlers failing
 * until the cause is fixed.
 */

const json = { 'content-type': 'application/json' };

interface Job {
  id: string;
  filter: Record<string, unknown>;
  status: 'running' | 'done' | 'canceled';
  total: number;
  replayed: number;
  ratePerSecond: number | null;
  actor: string | null;
  createdAt: string;
  finishedAt: string | null;
  error: string | null;
}

interface Refusal {
  statusCode: number;
  message: string;
}

function payment(secret: string): SignedStripeEvent {
  const id = stripeEventId();
  return signedStripeEvent(secret, { id, orderId: `o-${id}`, amount: 900, currency: 'eur' });
}

/** Delivers `count` events whose handler always fails, waits until each is dead, then fixes it. */
async function deadEvents(
  target: { webhooks: string; control: AdminOpsApp['control']; dataSource: TestApp['dataSource'] },
  secret: string,
  count: number,
): Promise<SignedStripeEvent[]> {
  const events = Array.from({ length: count }, () => payment(secret));
  for (const event of events) {
    target.control.scripts.set(event.id, { alwaysFail: true });
    expect((await post(target.webhooks, event.body, event.headers)).status).toBe(200);
  }
  const rows = target.dataSource.getRepository(WebhookEventEntity);
  await eventually(async () =>
    (await Promise.all(events.map((event) => rows.findOneBy({ eventId: event.id })))).every(
      (row) => row?.status === 'dead',
    ),
  );
  events.forEach((event) => target.control.scripts.delete(event.id));
  return events;
}

async function statusesOf(
  target: { dataSource: TestApp['dataSource'] },
  events: readonly SignedStripeEvent[],
): Promise<string[]> {
  const rows = target.dataSource.getRepository(WebhookEventEntity);
  return Promise.all(
    events.map(async (event) => (await rows.findOneByOrFail({ eventId: event.id })).status),
  );
}

describe.each<[string, () => Promise<AdminOpsApp>]>([
  ['the Nest module on Express and SQLite', () => nestOpsApp('express', 'sqlite')],
  ['the Nest module on Fastify and PostgreSQL', () => nestOpsApp('fastify', 'postgres')],
  ['the Express admin router after express.json() on SQLite', () => routerOpsApp('sqlite', true)],
  ['the Express admin router on PostgreSQL', () => routerOpsApp('postgres', false)],
])('replays in the background over the admin routes of %s', (_name, start) => {
  let app: AdminOpsApp;

  beforeAll(async () => {
    app = await start();
  });
  afterAll(() => app?.close());

  afterEach(async () => {
    app.control.scripts.clear();
    for (const job of (await call<Job[]>('GET', 'replays?limit=1000')).body) {
      if (job.status === 'running') {
        await call('POST', `replays/${job.id}/cancel`);
      }
    }
    await call('POST', 'discard?status=dead,retrying', { body: { reason: 'end of a test' } });
  });

  async function call<T = Record<string, unknown>>(
    method: 'GET' | 'POST',
    path: string,
    options: {
      body?: unknown;
      user?: Record<string, unknown>;
      headers?: Record<string, string>;
    } = {},
  ): Promise<{ status: number; body: T }> {
    const response = await fetch(`${app.admin}/${path}`, {
      method,
      headers: {
        'x-admin-token': TOKEN,
        ...(method === 'POST' ? json : {}),
        ...(options.user ? { 'x-user': encodeURIComponent(JSON.stringify(options.user)) } : {}),
        ...options.headers,
      },
      body: method === 'POST' ? JSON.stringify(options.body ?? {}) : undefined,
    });
    return { status: response.status, body: (await response.json()) as T };
  }

  const jobOf = async (id: string) => (await call<Job>('GET', `replays/${id}`)).body;

  it('starts a replay answered 202 with its job, and follows it to done at its rate', async () => {
    const events = await deadEvents(app, SECRET, 6);

    const started = await call<Job>('POST', 'replays?status=dead&rate=5', {
      user: { username: 'ann' },
    });
    expect(started.status).toBe(202);
    expect(started.body).toMatchObject({
      status: 'running',
      total: 6,
      replayed: 0,
      ratePerSecond: 5,
      actor: 'ann',
      filter: { status: ['dead'] },
      finishedAt: null,
    });
    const { id } = started.body;

    // Five a second: part of the way, still running, then all of it a second later.
    let midway = started.body;
    await eventually(async () => {
      midway = await jobOf(id);
      return midway.replayed > 0;
    });
    expect(midway.status).toBe('running');
    expect(midway.replayed).toBeLessThan(6);
    await eventually(async () => (await jobOf(id)).status === 'done', 15_000);
    const done = await jobOf(id);
    expect(done).toMatchObject({ status: 'done', replayed: 6, total: 6, error: null });
    expect(done.finishedAt).toEqual(expect.any(String));

    const listed = await call<Job[]>('GET', 'replays');
    expect(listed.status).toBe(200);
    expect(listed.body[0]).toMatchObject({ id, status: 'done', replayed: 6, actor: 'ann' });
    const latest = await call<Job[]>('GET', 'replays?limit=1');
    expect(latest.body.map((job) => job.id)).toEqual([id]);

    await eventually(async () =>
      (await statusesOf(app, events)).every((status) => status === 'processed'),
    );
    for (const event of events) {
      expect(await countEffects(app, event.id)).toBe(1);
    }
  });

  it('cancels a running replay midway, keeping what it put back, and 404s a second cancel', async () => {
    const events = await deadEvents(app, SECRET, 6);
    const started = await call<Job>('POST', 'replays?rate=4');
    expect(started.status).toBe(202);
    const { id } = started.body;
    await eventually(async () => (await jobOf(id)).replayed >= 1);

    const canceled = await call<Job>('POST', `replays/${id}/cancel`);
    expect(canceled.status).toBe(200);
    expect(canceled.body).toMatchObject({ id, status: 'canceled', total: 6 });
    expect(canceled.body.replayed).toBeLessThan(6);
    const again = await call<Refusal>('POST', `replays/${id}/cancel`);
    expect(again.status).toBe(404);
    expect(again.body.message).toBe(
      `Replay ${id} is canceled already: only a running replay can be canceled`,
    );

    // NOTE: three events' time at its rate: were it still running, some would be put back.
    await new Promise((resolve) => setTimeout(resolve, 750));
    expect(await jobOf(id)).toMatchObject({
      status: 'canceled',
      replayed: canceled.body.replayed,
    });
    await eventually(
      async () =>
        (await statusesOf(app, events)).filter((status) => status === 'processed').length ===
        canceled.body.replayed,
    );
    expect((await statusesOf(app, events)).filter((status) => status === 'dead')).toHaveLength(
      6 - canceled.body.replayed,
    );
  });

  it('answers 404 for a replay that is not there, and 400 for an id that is no uuid', async () => {
    const missing = randomUUID();
    const shown = await call<Refusal>('GET', `replays/${missing}`);
    expect(shown).toEqual({
      status: 404,
      body: expect.objectContaining({ message: `No replay ${missing}` }),
    });
    const canceled = await call<Refusal>('POST', `replays/${missing}/cancel`);
    expect(canceled.status).toBe(404);
    expect(canceled.body.message).toBe(`No replay ${missing}`);
    expect((await call<Refusal>('GET', 'replays/not-an-id')).status).toBe(400);
    expect((await call<Refusal>('POST', 'replays/not-an-id/cancel')).status).toBe(400);
  });

  it('refuses a bad rate, a dry run, a body, a bad limit and a cross-site request, storing nothing', async () => {
    await deadEvents(app, SECRET, 1);
    const before = (await call<Job[]>('GET', 'replays?limit=1000')).body.length;

    for (const [query, rule] of [
      ['rate=0', /rate of a replay in the background must be a whole number .* from 1 to 100000/],
      ['rate=0.5', /rate of a replay in the background must be a whole number/],
      ['rate=fast', /rate of a replay in the background must be a whole number/],
      ['rate=100001', /rate of a replay in the background must be a whole number/],
      ['dryRun=true', /a replay in the background takes no dryRun: .* POST replay\?dryRun=true/],
      ['status=pending', /status must be one or more of processed, ignored, dead, retrying/],
      ['since=yesterday', /since must be an age such as 30d, 12h or 15m/],
      ['limit=5', /unknown query parameter "limit"/],
    ] as const) {
      const refused = await call<Refusal>('POST', `replays?${query}`);
      expect({ query, status: refused.status }).toEqual({ query, status: 400 });
      expect(refused.body.message).toMatch(rule);
    }
    const withBody = await call<Refusal>('POST', 'replays', { body: { status: 'dead' } });
    expect(withBody.status).toBe(400);
    expect(withBody.body.message).toMatch(
      /Unknown body field "status": replays takes a body of \{\}/,
    );
    for (const query of ['limit=0', 'limit=1001', 'status=dead']) {
      expect((await call<Refusal>('GET', `replays?${query}`)).status).toBe(400);
    }

    expect((await call('POST', 'replays', { headers: { 'x-admin-token': 'wrong' } })).status).toBe(
      403,
    );
    const crossSite = await call('POST', 'replays', {
      headers: { 'sec-fetch-site': 'cross-site' },
    });
    expect(crossSite.status).toBe(403);
    const form = await fetch(`${app.admin}/replays`, {
      method: 'POST',
      headers: { 'x-admin-token': TOKEN, 'content-type': 'text/plain' },
      body: '{}',
    });
    expect(form.status).toBe(415);

    expect((await call<Job[]>('GET', 'replays?limit=1000')).body).toHaveLength(before);
  });
});

it('--help says a replay in the background is run by the app, and waits for it', async () => {
  // NOTE: each help text is its own run of the CLI; they run side by side.
  const [replay, replays, general] = await Promise.all([
    runCli(['events', 'replay', '--help']),
    runCli(['replays', '--help']),
    runCli(['--help']),
  ]);
  expect(replay.stdout).toContain('--background');
  expect(replay.stdout).toMatch(/the CLI only stores it, so it\s+waits while no instance/);
  expect(replays.stdout).toMatch(/^Usage: nestjs-payment-webhooks replays \[--limit <n>\]/);
  expect(replays.stdout).toContain('replays show <id>');
  expect(replays.stdout).toContain('replays cancel <id>');
  for (const command of ['replays', 'replays show', 'replays cancel']) {
    expect(general.stdout).toMatch(new RegExp(`^ {2}${command} `, 'm'));
  }
  expect(general.stdout).toMatch(/"events replay --background" only stores the replay/);
}, 300_000);

describe.each<Database>(['sqlite', 'postgres'])(
  'replays in the background from the CLI on %s',
  (database) => {
    const secret = 'whsec_replay_jobs_cli';
    let app: TestApp;
    let env: Record<string, string>;
    let target: {
      webhooks: string;
      control: TestApp['control'];
      dataSource: TestApp['dataSource'];
    };

    beforeAll(async () => {
      app = await startTestApp({
        platform: 'express',
        database,
        webhooks: {
          endpoints: [stripeEndpoint({ name: 'stripe', secret })],
          dispatch: {
            pollIntervalMs: 20,
            retry: { maxAttempts: 1, baseDelayMs: 10, maxDelayMs: 20 },
          },
        },
      });
      env = { DATABASE_URL: database === 'sqlite' ? `sqlite:${app.sqliteFile}` : app.databaseUrl! };
      target = {
        webhooks: `${app.url}/webhooks/stripe`,
        control: app.control,
        dataSource: app.dataSource,
      };
    }, 300_000);

    afterAll(() => app?.close());

    afterEach(async () => {
      const admin = app.app.get(WebhookAdmin);
      for (const job of await admin.replayJobs(1000)) {
        await admin.cancelReplay(job.id);
      }
      await admin.discard({}, { reason: 'end of a test' });
    });

    /** Runs the CLI on the app's database (through DATABASE_URL, as an operator would). */
    const cli = (args: string[]): Promise<CliResult> => runCli(args, { env });

    /** The arguments of a command the CLI printed, to run it as printed. */
    function printedCommand(stdout: string, label: string): string[] {
      const line = stdout.split('\n').find((text) => text.startsWith(label));
      expect(line).toBeDefined();
      const [name, ...args] = line!.slice(label.length).trim().split(/\s+/);
      expect(name).toBe('nestjs-payment-webhooks');
      return args;
    }

    async function shown(id: string): Promise<Job> {
      return cliJson<Job>(await cli(['replays', 'show', id, '--json']));
    }

    /** The replay as the app reads it: polled without a CLI process per look. */
    async function stored(id: string) {
      return (await app.app.get(WebhookAdmin).replayJob(id))!;
    }

    it('stores a replay the running app carries out, followed to done by the commands it prints', async () => {
      const events = await deadEvents(target, secret, 3);

      const started = await cli([
        'events',
        'replay',
        '--background',
        '--rate',
        '1',
        '--actor',
        'alice',
      ]);
      expect(started).toMatchObject({ code: 0, stderr: '' });
      const [, id] = /^Replay (\S+) stored: 3 event\(s\) to put back, at most 1 a second\.$/m.exec(
        started.stdout,
      )!;
      expect(started.stdout).toContain(
        "The app's running instances run it; it waits while none is up.",
      );
      const follow = printedCommand(started.stdout, 'Follow it:');
      expect(follow).toEqual(['replays', 'show', id]);
      expect(printedCommand(started.stdout, 'Stop it:')).toEqual(['replays', 'cancel', id]);

      const first = await cli(follow);
      expect(first.code).toBe(0);
      expect(first.stdout).toMatch(new RegExp(`^Replay ${id}\n {2}status {4}running`));
      expect(first.stdout).toMatch(/^ {2}progress {2}\d\/3 \(\d+%\) put back$/m);
      expect(first.stdout).toMatch(/^ {2}rate {6}at most 1 a second$/m);
      expect(first.stdout).toMatch(/^ {2}filter {4}status=dead$/m);
      expect(first.stdout).toMatch(/^ {2}started {3}\S+Z \(.* ago\) by alice$/m);

      // NOTE: the app looks for stored replays every second; at 1 a second, 3 take 2 more.
      await eventually(async () => (await stored(id)).status === 'done', 20_000);
      // NOTE: what only reads runs side by side.
      const [shownDone, done, list, latest] = await Promise.all([
        shown(id),
        cli(follow),
        cli(['replays']),
        cli(['replays', '--json', '--limit', '1']),
      ]);
      expect(shownDone).toMatchObject({
        replayed: 3,
        total: 3,
        actor: 'alice',
        ratePerSecond: 1,
      });
      expect(done.stdout).toMatch(/^ {2}status {4}done$/m);
      expect(done.stdout).toMatch(/^ {2}progress {2}3\/3 \(100%\) put back$/m);
      expect(done.stdout).toMatch(/^ {2}finished {2}\S+Z \(after .*\)$/m);
      expect(done.stdout).not.toContain('replays cancel');

      expect(list.stdout.split('\n').slice(0, 2)).toEqual([
        expect.stringMatching(/^ID\s+STATUS\s+PROGRESS\s+RATE\s+STARTED\s+BY$/),
        expect.stringMatching(
          new RegExp(`^${id}\\s+done\\s+3/3 \\(100%\\)\\s+1/s\\s+.* ago\\s+alice$`),
        ),
      ]);
      expect(cliJson<Job[]>(latest).map((job) => job.id)).toEqual([id]);

      await eventually(async () =>
        (await statusesOf(app, events)).every((status) => status === 'processed'),
      );
      for (const event of events) {
        expect(await countEffects(app, event.id)).toBe(1);
      }
    });

    it('cancels a replay midway with the command it prints, and fails a second cancel', async () => {
      const events = await deadEvents(target, secret, 6);
      const started = await cli(['events', 'replay', '--background', '--rate', '2']);
      const [, id] = /^Replay (\S+) stored/m.exec(started.stdout)!;
      await eventually(async () => (await stored(id)).replayed >= 1, 20_000);

      const canceled = await cli(printedCommand(started.stdout, 'Stop it:'));
      const canceledAt = Date.now();
      expect(canceled.code).toBe(0);
      const [, replayed] = new RegExp(
        `^Canceled replay ${id} after (\\d) of 6 event\\(s\\) were put back`,
      ).exec(canceled.stdout)!;
      expect(Number(replayed)).toBeLessThan(6);
      const again = await cli(['replays', 'cancel', id]);
      expect(again.code).toBe(1);
      expect(again.stderr).toContain(`replay ${id} is canceled already (${replayed}/6 put back)`);

      // NOTE: two events' time at its rate since the cancel: were it still running, one more
      // would be put back.
      await new Promise((resolve) =>
        setTimeout(resolve, Math.max(0, canceledAt + 1_000 - Date.now())),
      );
      expect(await shown(id)).toMatchObject({ status: 'canceled', replayed: Number(replayed) });
      await eventually(
        async () =>
          (await statusesOf(app, events)).filter((status) => status === 'dead').length ===
          6 - Number(replayed),
      );
    });

    it('refuses a bad rate or an id with --background, stores nothing on a dry run, and fails an unknown replay', async () => {
      await deadEvents(target, secret, 2);
      const before = cliJson<Job[]>(await cli(['replays', '--json', '--limit', '1000'])).length;

      const refusals = [
        [['--rate', '0.5'], /--rate of a replay in the background must be a whole number/],
        [['--rate', '0'], /--rate must be a number of events per second above 0/],
        [
          ['--rate', '0.5', '--dry-run'],
          /--rate of a replay in the background must be a whole number/,
        ],
        [[randomUUID()], /give an id or filters, not both \(got --background with id/],
        [['--since', '2025-02-30'], /--since must be an age .* or an ISO 8601 time/],
      ] as const;
      // NOTE: refusals store nothing, so they run side by side.
      const answers = await Promise.all(
        refusals.map(([args]) => cli(['events', 'replay', '--background', ...args])),
      );
      for (const [i, [args, rule]] of refusals.entries()) {
        expect({ args, code: answers[i].code }).toEqual({ args, code: 2 });
        expect(answers[i].stderr).toMatch(rule);
      }
      const dryRun = await cli([
        'events',
        'replay',
        '--background',
        '--dry-run',
        '--rate',
        '5',
        '--json',
      ]);
      expect(cliJson(dryRun)).toMatchObject({ replayed: 0, wouldReplay: 2 });
      expect(cliJson<Job[]>(await cli(['replays', '--json', '--limit', '1000']))).toHaveLength(
        before,
      );

      const missing = randomUUID();
      const [show, cancel, noId, noLimit] = await Promise.all([
        cli(['replays', 'show', missing]),
        cli(['replays', 'cancel', missing]),
        cli(['replays', 'show']),
        cli(['replays', '--limit', '0']),
      ]);
      for (const unknown of [show, cancel]) {
        expect(unknown.code).toBe(1);
        expect(unknown.stderr).toContain(
          `no replay with id "${missing}" (ids are listed by "replays")`,
        );
      }
      expect(noId.code).toBe(2);
      expect(noLimit.code).toBe(2);
    });
  },
);
