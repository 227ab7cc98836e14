import { Injectable } from '@nestjs/common';
import {
  OnPaymentEvent,
  PaymentEvent,
  stripeEndpoint,
  WebhookAdmin,
  WebhookContext,
} from 'nestjs-payment-webhooks';
import { cliJson, runCli } from '../support/cli';
import { post } from '../support/http';
import { stripeEventId, stripePaymentEvent } from '../support/stripe-event';
import {
  applyTestEffect,
  Database,
  eventually,
  HandlerControl,
  sameDatabaseAs,
  startTestApp,
  TestApp,
  TestEffect,
  TestPaymentHandlers,
} from '../support/test-app';

/**
 * `events backfill` and `backfills`, the CLI (its runCli(), as the bin runs it) next to a
 * running app on the same database: the events arrived before the app had the handler; the CLI
 * stores the backfill, an instance of the app that has the handler now runs it.
 */

const SECRET = 'whsec_cli_backfill';
const HANDLER = 'AnalyticsSink.onPayment';

/** The handler the app adds later: payments only (customers pass without a run). */
@Injectable()
class AnalyticsSink {
  constructor(private readonly control: HandlerControl) {}

  @OnPaymentEvent('payment.succeeded')
  async onPayment(event: PaymentEvent, ctx: WebhookContext): Promise<void> {
    await applyTestEffect(this.control, 'analytics', event, ctx);
  }
}

/** How many effects a test handler (`payments`, `analytics`) has, by provider event id. */
async function effectsOf(app: TestApp, handler: string): Promise<Map<string, number>> {
  const rows = await app.dataSource.getRepository(TestEffect).findBy({ handler });
  const counts = new Map<string, number>();
  rows.forEach((row) => counts.set(row.eventId, (counts.get(row.eventId) ?? 0) + 1));
  return counts;
}

it('--help shows the backfill options, that the handler is not checked, and an example', async () => {
  const [help, backfill, backfills] = await Promise.all([
    runCli(['--help']),
    runCli(['events', 'backfill', '--help']),
    runCli(['backfills', '--help']),
  ]);
  expect(help.stdout).toMatch(/^ {2}events backfill /m);
  expect(help.stdout).toMatch(/^ {2}backfills show /m);
  for (const option of [
    '--handler <key>',
    '--since <age|time>',
    '--until <age|time>',
    '--endpoint <name>',
    '--tenant <id>',
    '--type <type>',
    '--dry-run',
    '--rate <n>',
    '--wait',
    '--actor <name>',
  ]) {
    expect(backfill.stdout).toContain(option);
  }
  expect(backfill.stdout.replace(/\s+/g, ' ')).toContain("cannot check the handler's name");
  expect(backfill.stdout).toContain(
    'events backfill --handler AnalyticsSink.onEvent --since 30d --dry-run',
  );
  expect(backfills.stdout).toContain('backfills cancel <id>');
});

describe.each<Database>(['sqlite', 'postgres'])('backfilling from the CLI on %s', (database) => {
  let app: TestApp;
  let env: Record<string, string>;
  const payments: string[] = [];
  const customers: string[] = [];

  beforeAll(async () => {
    // The app as it was: the payments handler only, so the customers' events were ignored.
    const before = await startTestApp({
      platform: 'express',
      database,
      webhooks: { endpoints: [stripeEndpoint({ name: 'stripe', secret: SECRET })] },
    });
    for (let n = 0; n < 40; n += 1) {
      const event =
        n % 4 === 3
          ? stripePaymentEvent(SECRET, {
              id: stripeEventId(),
              type: 'customer.created',
              object: { id: `cus_${n}`, object: 'customer' },
            })
          : stripePaymentEvent(SECRET, { id: stripeEventId(), orderId: `order-${n}` });
      (n % 4 === 3 ? customers : payments).push(event.id);
      expect(
        (await post(`${before.url}/webhooks/stripe`, event.body, event.headers())).status,
      ).toBe(200);
    }
    const admin = before.app.get(WebhookAdmin);
    await eventually(
      async () => (await admin.count({ status: ['processed', 'ignored'] })) === 40,
      30_000,
    );
    await before.stop();
    app = await startTestApp({
      platform: 'express',
      database,
      webhooks: { endpoints: [stripeEndpoint({ name: 'stripe', secret: SECRET })] },
      handlers: [TestPaymentHandlers, AnalyticsSink],
      ...sameDatabaseAs(before),
    });
    env = { DATABASE_URL: database === 'sqlite' ? `sqlite:${app.sqliteFile}` : app.databaseUrl! };
  });

  afterAll(async () => {
    await app?.close();
  });

  it('counts in a dry run, runs the handler once per event with --wait, and retries the runs that threw', async () => {
    const paymentsBefore = await effectsOf(app, 'payments');
    const dry = await runCli(
      ['events', 'backfill', '--handler', HANDLER, '--since', '1h', '--dry-run'],
      {
        env,
      },
    );
    expect(dry.stdout).toContain(
      `Dry run done: ${HANDLER} would run on 30 of 40 event(s) without a run of it; 10 would pass without a run (another type).`,
    );
    expect(dry.code).toBe(0);
    expect((await effectsOf(app, 'analytics')).size).toBe(0);

    const failing = payments.slice(0, 5);
    failing.forEach((id) => app.control.scripts.set(id, { alwaysFail: true }));
    const first = await runCli(
      [
        'events',
        'backfill',
        '--handler',
        HANDLER,
        '--since',
        '1h',
        '--wait',
        '--actor',
        'ops@example',
      ],
      { env },
    );
    expect(first.stdout).toContain(
      `Backfill done: ${HANDLER} ran on 25 event(s), 5 failed (run the backfill again to retry those); 10 passed without a run (another type).`,
    );
    // Runs that threw: exit code 1, for a script to notice.
    expect(first.code).toBe(1);
    expect(first.stderr).toContain(`waiting for an instance of the app that has ${HANDLER}`);

    failing.forEach((id) => app.control.scripts.delete(id));
    const again = await runCli(
      ['events', 'backfill', '--handler', HANDLER, '--since', '1h', '--wait'],
      { env },
    );
    expect(again.stdout).toContain(
      `Backfill done: ${HANDLER} ran on 5 event(s); 10 passed without a run (another type).`,
    );
    expect(again.code).toBe(0);

    // The new handler ran once on every payment, on nothing else; the old one did not run again.
    const analytics = await effectsOf(app, 'analytics');
    expect([...analytics.keys()].sort()).toEqual([...payments].sort());
    expect([...analytics.values()].every((count) => count === 1)).toBe(true);
    expect(await effectsOf(app, 'payments')).toEqual(paymentsBefore);
    const admin = app.app.get(WebhookAdmin);
    expect(await admin.count({ status: 'processed' })).toBe(30);
    expect(await admin.count({ status: 'ignored' })).toBe(10);

    const listed = cliJson<
      {
        handler: string;
        status: string;
        dryRun: boolean;
        ran: number;
        failed: number;
        actor: string;
      }[]
    >(await runCli(['backfills', '--json'], { env }));
    expect(listed.map((job) => [job.handler, job.status, job.dryRun, job.ran, job.failed])).toEqual(
      [
        [HANDLER, 'done', false, 5, 0],
        [HANDLER, 'done', false, 25, 5],
        [HANDLER, 'done', true, 30, 0],
      ],
    );
    expect(listed[1].actor).toBe('ops@example');
    expect(listed[0].actor).toMatch(/@cli$/);
    const table = await runCli(['backfills'], { env });
    expect(table.stdout).toMatch(/^ID +HANDLER +STATUS +PROGRESS +STARTED +BY$/m);
    expect(table.stdout).toContain('40/40 passed, 25 ran, 5 failed');
  });

  it('takes --type repeated and comma-separated, and prints a dry run as JSON', async () => {
    const result = await runCli(
      [
        'events',
        'backfill',
        '--handler',
        HANDLER,
        '--since',
        '1h',
        '--type',
        'payment.succeeded,stripe:customer.created',
        '--type',
        'payment.failed',
        '--dry-run',
        '--json',
      ],
      { env },
    );
    expect(result.code).toBe(0);
    const job = cliJson<{ status: string; total: number; scope: { types: string[] } }>(result);
    expect(job.scope.types).toEqual([
      'payment.succeeded',
      'stripe:customer.created',
      'payment.failed',
    ]);
    // Every payment has a run of the handler now: only the customers are left, of another type.
    expect(job).toMatchObject({ status: 'done', total: 10, ran: 0, passed: 10 });
  });

  it('stores a backfill of a handler no instance has, shows it waiting, and cancels it', async () => {
    const stored = await runCli(
      ['events', 'backfill', '--handler', 'Nope.handle', '--since', '1h'],
      {
        env,
      },
    );
    expect(stored.code).toBe(0);
    expect(stored.stdout.replace(/\s+/g, ' ')).toContain("cannot check the handler's name");
    const id = /Backfill (\S+) of Nope\.handle stored: 40 event\(s\)/.exec(stored.stdout)?.[1];
    expect(id).toBeDefined();

    const shown = await runCli(['backfills', 'show', id!], { env });
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain(
      'running: waiting for an instance of the app that has handler Nope.handle (is one up?)',
    );
    expect(shown.stdout).toMatch(/window +\d{4}-\d{2}-\d{2}T/);
    expect(shown.stdout).toContain('0/40 passed, 0 ran, 0 failed');
    const json = cliJson<{ id: string; handler: string; lockedBy: null }>(
      await runCli(['backfills', 'show', id!, '--json'], { env }),
    );
    expect(json).toMatchObject({ id, handler: 'Nope.handle', lockedBy: null });

    const canceled = await runCli(['backfills', 'cancel', id!], { env });
    expect(canceled.code).toBe(0);
    expect(canceled.stdout).toContain(`Canceled backfill ${id} after 0/40 passed`);
    const twice = await runCli(['backfills', 'cancel', id!], { env });
    expect(twice.code).toBe(1);
    expect(twice.stderr).toContain('is canceled already');
    const missing = await runCli(['backfills', 'show', '0193a7e0-1d52-7c3a-8e4f-6a0b2c9d1e37'], {
      env,
    });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('no backfill with id');
  });

  it('refuses a missing handler and a reversed window, before storing anything', async () => {
    const noHandler = await runCli(['events', 'backfill', '--since', '1h'], { env });
    expect(noHandler.code).toBe(2);
    expect(noHandler.stderr).toContain('--handler is required');
    const reversed = await runCli(
      ['events', 'backfill', '--handler', HANDLER, '--since', '1h', '--until', '2h'],
      { env },
    );
    expect(reversed.code).toBe(2);
    expect(reversed.stderr).toContain('is not before its end');
    const noId = await runCli(['backfills', 'show'], { env });
    expect(noId.code).toBe(2);
    expect(
      cliJson<unknown[]>(await runCli(['backfills', '--json', '--limit', '1000'], { env })),
    ).toHaveLength(5);
  });
});
