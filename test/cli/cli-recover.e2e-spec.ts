import { stripeEndpoint } from 'nestjs-payment-webhooks';
import { cliJson, runCli } from '../support/cli';
import { FakeStripeEvents } from '../support/fake-stripe-events';
import { post } from '../support/http';
import { stripeEventId, stripePaymentEvent } from '../support/stripe-event';
import { countEffects, Database, eventually, startTestApp, TestApp } from '../support/test-app';

/**
 * `events recover` and `recoveries`, the CLI (its runCli(), as the bin runs it) next to a
 * running app on the same database, whose Stripe endpoint reads a local fake of Stripe's Events
 * API: the CLI stores the recovery, the app's instance runs it with the endpoint's key.
 */

const SECRET = 'whsec_cli_recover';

it('--help shows the recovery options and an example', async () => {
  const [help, recover] = await Promise.all([
    runCli(['--help']),
    runCli(['events', 'recover', '--help']),
  ]);
  expect(help.stdout).toMatch(/^ {2}events recover /m);
  expect(help.stdout).toMatch(/^ {2}recoveries /m);
  for (const option of [
    '--endpoint <name>',
    '--since <age|time>',
    '--dry-run',
    '--wait',
    '--tenant <id>',
  ]) {
    expect(recover.stdout).toContain(option);
  }
  expect(recover.stdout).toContain('events recover --endpoint stripe --since 72h --dry-run');
});

describe.each<Database>(['sqlite', 'postgres'])('recovering from the CLI on %s', (database) => {
  let api: FakeStripeEvents;
  let app: TestApp;
  let env: Record<string, string>;

  beforeAll(async () => {
    api = await FakeStripeEvents.start();
    app = await startTestApp({
      platform: 'express',
      database,
      webhooks: {
        endpoints: [stripeEndpoint({ name: 'stripe', secret: SECRET, api: api.api() })],
        dispatch: { pollIntervalMs: 50 },
      },
    });
    env = { DATABASE_URL: database === 'sqlite' ? `sqlite:${app.sqliteFile}` : app.databaseUrl! };
  });

  afterAll(async () => {
    await app?.close();
    await api?.close();
  });

  it('counts in a dry run, recovers with --wait, lists it, and fails a recovery of an unknown endpoint', async () => {
    const now = Math.floor(Date.now() / 1000);
    const events = Array.from({ length: 120 }, (_, n) =>
      stripePaymentEvent(SECRET, { id: stripeEventId(), created: now - 600 + n }),
    );
    api.add(...events.map((event) => JSON.parse(event.body)));
    for (const event of events.slice(0, 20)) {
      expect((await post(`${app.url}/webhooks/stripe`, event.body, event.headers())).status).toBe(
        200,
      );
    }

    const dry = await runCli(
      ['events', 'recover', '--endpoint', 'stripe', '--since', '1h', '--dry-run'],
      { env },
    );
    expect(dry.stdout).toContain(
      "Dry run done: 120 event(s) in the log's window, 100 of them not in the inbox",
    );
    expect(dry.code).toBe(0);
    expect(await countEffects(app, events[50].id)).toBe(0);

    const recovered = await runCli(
      [
        'events',
        'recover',
        '--endpoint',
        'stripe',
        '--since',
        '1h',
        '--wait',
        '--actor',
        'ops@example',
      ],
      { env },
    );
    expect(recovered.stdout).toContain('Recovery done: 120 event(s) read from the log, 100 stored');
    expect(recovered.code).toBe(0);
    for (const event of events) {
      await eventually(async () => (await countEffects(app, event.id)) === 1);
    }

    const listed = cliJson<{ endpoint: string; status: string; stored: number; actor: string }[]>(
      await runCli(['recoveries', '--json'], { env }),
    );
    expect(listed.map((job) => [job.endpoint, job.status, job.stored, job.actor])).toEqual([
      ['stripe', 'done', 100, 'ops@example'],
      ['stripe', 'done', 100, expect.stringMatching(/@cli$/)],
    ]);

    const unknown = await runCli(
      ['events', 'recover', '--endpoint', 'nope', '--since', '1h', '--wait'],
      { env },
    );
    expect(unknown.code).toBe(1);
    expect(unknown.stdout).toContain('failed: there is no endpoint "nope" in this app');

    const stored = await runCli(['events', 'recover', '--endpoint', 'stripe', '--since', '1h'], {
      env,
    });
    expect(stored.code).toBe(0);
    const id = /Recovery (\S+) of "stripe" stored/.exec(stored.stdout)?.[1];
    expect(id).toBeDefined();
    const shown = await runCli(['recoveries', 'show', id!], { env });
    expect(shown.stdout).toMatch(/window +\d{4}-\d{2}-\d{2}T/);
  });

  it('refuses a window whose start is not before its end, before storing anything', async () => {
    const result = await runCli(
      ['events', 'recover', '--endpoint', 'stripe', '--since', '1h', '--until', '2h'],
      { env },
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('is not before its end');
  });
});
