import { userInfo } from 'node:os';
import { stripeEndpoint, WebhookAdmin } from 'nestjs-payment-webhooks';
import {
  cliJson,
  CliResult,
  ensureBuiltCli,
  runBuiltCli,
  runCli,
  RunCliOptions,
} from '../support/cli';
import { post } from '../support/http';
import { parkedByPause } from '../support/inbox-state';
import { PAUSES_REFRESH_MS } from '../support/internals';
import { stripeEventId, stripePaymentEvent, StripeTestEvent } from '../support/stripe-event';
import { countEffects, Database, eventually, startTestApp, TestApp } from '../support/test-app';

/**
 * What an operator does from the command line when handlers fail: the failures grouped by
 * cause, a group replayed after a dry run (and a replay stopped with Ctrl-C), an event's
 * timeline, a group discarded with a reason, and dispatch paused and resumed. The CLI (its
 * runCli(), as the bin runs it) next to a running app on the same SQLite file or PostgreSQL
 * database, with deliveries signed by Stripe's SDK.
 */

const SECRET = 'whsec_cli_operations';
const HANDLER = 'TestPaymentHandlers.onPayment';
const OS_ACTOR = `${userInfo().username}@cli`;

interface GroupJson {
  endpoint: string;
  handlerKey: string | null;
  fingerprint: string;
  errorClass: string | null;
  count: number;
  dead: number;
  sampleId: string;
}

interface HistoryJson {
  kind: string;
  attempt: number | null;
  handlerKey: string | null;
  outcome: string;
  actor: string | null;
  detail: string | null;
}

// NOTE: the Ctrl-C case runs the built bin.
beforeAll(() => ensureBuiltCli(), 300_000);

function stripeEvent(): StripeTestEvent {
  const id = stripeEventId();
  return stripePaymentEvent(SECRET, { id, orderId: `o-${id}`, amount: 900, currency: 'eur' });
}

it('--help lists the operations commands and their options', async () => {
  // NOTE: the help of each command is its own run of the CLI; they run side by side.
  const [help, replay, discard, groups, pause] = await Promise.all([
    runCli(['--help']),
    runCli(['events', 'replay', '--help']),
    runCli(['help', 'events', 'discard']),
    runCli(['events', 'groups', '--help']),
    runCli(['pause', '--help']),
  ]);
  for (const command of ['events groups', 'events discard', 'pause', 'resume', 'pauses']) {
    expect(help.stdout).toMatch(new RegExp(`^ {2}${command} `, 'm'));
  }
  expect(help.stdout).toContain('WEBHOOKS_ACTOR');
  for (const option of ['--dry-run', '--rate <n/s>', '--group <fingerprint>', '--handler <key>']) {
    expect(replay.stdout).toContain(option);
  }
  expect(replay.stdout).toContain('--actor <name>');
  expect(discard.stdout).toContain('--reason <text>');
  expect(discard.stdout).toContain('--all');
  expect(groups.stdout).toContain('--status <status>');
  expect(pause.stdout).toContain('--reason <text>');
});

describe.each<Database>(['sqlite', 'postgres'])('CLI operations on %s', (database) => {
  let app: TestApp;
  let admin: WebhookAdmin;
  let env: Record<string, string>;

  beforeAll(async () => {
    app = await startTestApp({
      platform: 'express',
      database,
      webhooks: {
        endpoints: [stripeEndpoint({ name: 'stripe', secret: SECRET })],
        dispatch: {
          pollIntervalMs: 20,
          retry: { maxAttempts: 2, baseDelayMs: 10, maxDelayMs: 20 },
        },
      },
    });
    admin = app.app.get(WebhookAdmin);
    env = { DATABASE_URL: database === 'sqlite' ? `sqlite:${app.sqliteFile}` : app.databaseUrl! };
  });

  afterAll(() => app.close());

  /** Runs the CLI on the app's database (through DATABASE_URL, as an operator would). */
  function cli(args: string[], options: RunCliOptions = {}): Promise<CliResult> {
    return runCli(args, { ...options, env: { ...env, ...options.env } });
  }

  async function deliver(event = stripeEvent()): Promise<StripeTestEvent> {
    const response = await post(`${app.url}/webhooks/stripe`, event.body, event.headers());
    expect(response.status).toBe(200);
    return event;
  }

  /** The event as the admin lists it: its live status and due time. */
  async function listed(event: StripeTestEvent) {
    const [row] = await admin.list({ eventId: event.id });
    return row;
  }

  async function settled(status: string, ...events: StripeTestEvent[]): Promise<string[]> {
    await eventually(async () =>
      (await Promise.all(events.map(listed))).every((row) => row?.status === status),
    );
    return Promise.all(events.map(async (event) => (await listed(event)).id));
  }

  async function deadGroup(errorClass: string): Promise<GroupJson> {
    const groups = cliJson<GroupJson[]>(await cli(['events', 'groups', '--json']));
    const group = groups.find((entry) => entry.errorClass === errorClass);
    expect(group).toBeDefined();
    return group!;
  }

  it('groups dead events, replays a group after a dry run, and shows the timeline', async () => {
    const broken = [stripeEvent(), stripeEvent(), stripeEvent()];
    for (const event of broken) {
      app.control.scripts.set(event.id, { alwaysFail: true });
      await deliver(event);
    }
    const ids = await settled('dead', ...broken);
    const group = await deadGroup('Error');
    expect(group).toMatchObject({ endpoint: 'stripe', handlerKey: HANDLER, count: 3, dead: 3 });

    // NOTE: what only reads runs side by side.
    const [table, dead] = await Promise.all([
      cli(['events', 'groups']),
      cli(['events', 'show', ids[0]]),
    ]);
    expect(table.code).toBe(0);
    const lines = table.stdout.split('\n');
    expect(lines[0]).toMatch(
      /^COUNT\s+DEAD\s+ENDPOINT\s+HANDLER\s+FIRST SEEN\s+LAST SEEN\s+FINGERPRINT\s+ERROR$/,
    );
    expect(lines[1]).toMatch(
      new RegExp(
        `^3\\s+3\\s+stripe\\s+${HANDLER}\\s+\\d+ (s|ms|min).* ago\\s+.*${group.fingerprint}`,
      ),
    );
    expect(lines[1]).toMatch(/Error: handler failure on attempt 2$/);
    expect(table.stdout).toContain(`events replay --group ${group.fingerprint} --dry-run`);
    expect(table.stdout).toContain(`events discard --group ${group.fingerprint} --reason '…'`);
    expect(table.stdout).toContain(`pause --endpoint stripe --handler ${HANDLER} --reason '…'`);

    // The dead event's last error and each failed attempt read as lines, not one escaped line.
    expect(dead.stdout).toMatch(
      new RegExp(
        `^ {2}last error +${HANDLER}: Error: handler failure on attempt 2\n {20,}at `,
        'm',
      ),
    );
    expect(dead.stdout).not.toContain('\\n');

    const [dryRun, dryRunJson] = await Promise.all([
      cli(['events', 'replay', '--group', group.fingerprint, '--dry-run']),
      cli(['events', 'replay', '--group', group.fingerprint, '--dry-run', '--json']),
    ]);
    expect(dryRun.code).toBe(0);
    expect(dryRun.stdout).toMatch(/^Would replay 3 event\(s\); nothing was changed\./);
    for (const id of ids) {
      expect(dryRun.stdout).toContain(`  ${id}\n`);
    }
    const dryJson = cliJson<{ replayed: number; wouldReplay: number; sample: string[] }>(
      dryRunJson,
    );
    expect(dryJson).toMatchObject({ replayed: 0, wouldReplay: 3 });
    expect([...dryJson.sample].sort()).toEqual([...ids].sort());
    for (const event of broken) {
      expect((await listed(event)).status).toBe('dead');
    }
    expect((await admin.show(ids[0]))!.history.map((entry) => entry.kind)).toEqual([
      'attempt',
      'attempt',
    ]);

    broken.forEach((event) => app.control.scripts.delete(event.id));
    const replay = await cli([
      'events',
      'replay',
      '--group',
      group.fingerprint,
      '--actor',
      'alice',
    ]);
    expect(replay.code).toBe(0);
    expect(replay.stderr).toContain('replayed 3/3');
    expect(replay.stdout).toMatch(/Replayed 3 event\(s\)/);
    await settled('processed', ...broken);
    for (const event of broken) {
      expect(await countEffects(app, event.id)).toBe(1);
    }

    const shown = await cli(['events', 'show', ids[0]]);
    expect(shown.code).toBe(0);
    const timeline = shown.stdout.split('\nTimeline\n')[1].split('\n\n')[0].split('\n');
    const at = (pattern: RegExp) => timeline.findIndex((line) => pattern.test(line));
    const stamp = '\\d{4}-\\d{2}-\\d{2}T[\\d:.]+Z';
    const received = at(new RegExp(`^ {2}${stamp} {2}received \\(1 delivery in all\\)$`));
    const first = at(new RegExp(`^ {2}${stamp} {2}attempt 1 failed: ${HANDLER} → retrying$`));
    const second = at(new RegExp(`^ {2}${stamp} {2}attempt 2 failed: ${HANDLER} → dead$`));
    // NOTE: the filter's fields in the order the history keeps them.
    const replayed = at(
      new RegExp(
        `^ {2}${stamp} {2}replayed by alice from dead \\((?=.*\\bstatus=dead\\b)(?=.*\\bfingerprint=${group.fingerprint}\\b).*\\)$`,
      ),
    );
    const succeeded = at(new RegExp(`^ {2}${stamp} {2}${HANDLER} succeeded on attempt 1$`));
    expect([received, first, second, replayed, succeeded].every((index) => index >= 0)).toBe(true);
    expect(received < first && first < second && second < replayed && replayed < succeeded).toBe(
      true,
    );
    // Under each attempt: when it ran and where, then the error over several lines.
    expect(timeline[first + 1]).toMatch(
      new RegExp(`^ {6}${stamp} → ${stamp} \\(\\d+ (ms|s)\\), worker \\S+`),
    );
    expect(timeline[first + 2]).toBe('      Error: handler failure on attempt 1');
    expect(timeline[first + 3]).toMatch(/^ {10}at /);
    expect(timeline.join('\n')).not.toContain('\\n');

    const json = cliJson<{ history: HistoryJson[] }>(
      await cli(['events', 'show', ids[0], '--json']),
    );
    expect(
      json.history.map((entry) => [entry.kind, entry.attempt, entry.outcome, entry.actor]),
    ).toEqual([
      ['attempt', 1, 'retrying', null],
      ['attempt', 2, 'dead', null],
      ['replay', null, 'dead', 'alice'],
    ]);

    // One event again by its id: the actor comes from WEBHOOKS_ACTOR, else the OS user.
    const byVariable = await cli(['events', 'replay', ids[1]], {
      env: { WEBHOOKS_ACTOR: 'ops-bot' },
    });
    expect(byVariable.code).toBe(0);
    await eventually(async () => (await admin.show(ids[1]))!.history.at(-1)?.actor === 'ops-bot');
    await settled('processed', broken[1]);
    expect(await cli(['events', 'replay', ids[2]])).toMatchObject({ code: 0 });
    await eventually(async () => (await admin.show(ids[2]))!.history.at(-1)?.actor === OS_ACTOR);
    await settled('processed', broken[2]);
    expect(await countEffects(app, broken[1].id)).toBe(1);
  });

  it('stops a replay at Ctrl-C between batches, and says how many were replayed', async () => {
    const since = new Date().toISOString();
    const broken = [stripeEvent(), stripeEvent(), stripeEvent()];
    for (const event of broken) {
      app.control.scripts.set(event.id, { alwaysFail: true });
      await deliver(event);
    }
    const ids = await settled('dead', ...broken);
    broken.forEach((event) => app.control.scripts.delete(event.id));

    // NOTE: the built bin in a child process, so that a real SIGINT reaches it.
    const replay = await runBuiltCli(['events', 'replay', '--since', since, '--rate', '1/s'], {
      env,
      interruptWhen: (stderr) => stderr.includes('replayed 1/3'),
    });
    expect(replay.code).toBe(130);
    expect(replay.stderr).toContain('Stopping after this batch');
    expect(replay.stdout).toMatch(/^Canceled: replayed 1 event\(s\) before Ctrl-C/);
    const replayedIds = [];
    for (const id of ids) {
      if ((await admin.show(id))!.history.some((entry) => entry.kind === 'replay')) {
        replayedIds.push(id);
      }
    }
    expect(replayedIds).toHaveLength(1);
    const left = await admin.count({ since: new Date(since), status: 'dead' });
    expect(left).toBe(2);

    const rest = await cli(['events', 'replay', '--since', since, '--json']);
    expect(cliJson(rest)).toEqual({ replayed: 2 });
    await settled('processed', ...broken);
  });

  it('refuses a discard without a reason or a filter, and discards a group with one', async () => {
    const poisoned = [stripeEvent(), stripeEvent()];
    for (const event of poisoned) {
      app.control.scripts.set(event.id, { nonRetryable: true });
      await deliver(event);
    }
    const ids = await settled('dead', ...poisoned);
    const group = await deadGroup('NonRetryableError');
    expect(group).toMatchObject({ count: 2, dead: 2 });

    const refusals: [string[], RegExp][] = [
      [['--group', group.fingerprint], /--reason is required/],
      [['--group', group.fingerprint, '--reason', '  '], /--reason is required/],
      [['--reason', 'order deleted'], /give a filter .* or --all/],
      [['--all', '--endpoint', 'stripe', '--reason', 'x'], /give filters or --all, not both/],
      [
        ['--group', group.fingerprint, '--reason', 'x', '--status', 'processed'],
        /--status takes dead, retrying/,
      ],
    ];
    // NOTE: refusals change nothing, so they run side by side.
    const answers = await Promise.all(
      refusals.map(([args]) => cli(['events', 'discard', ...args])),
    );
    for (const [i, [, message]] of refusals.entries()) {
      const refused = answers[i];
      expect({ code: refused.code, stderr: refused.stderr }).toEqual({
        code: 2,
        stderr: expect.stringMatching(message),
      });
    }

    const dryRun = await cli([
      'events',
      'discard',
      '--group',
      group.fingerprint,
      '--reason',
      'order deleted',
      '--dry-run',
    ]);
    expect(dryRun.stdout).toBe('Would discard 2 event(s); nothing was changed.\n');
    expect((await listed(poisoned[0])).status).toBe('dead');

    const discard = await cli([
      'events',
      'discard',
      '--group',
      group.fingerprint,
      '--reason',
      'order deleted',
      '--json',
    ]);
    expect(cliJson(discard)).toEqual({ discarded: 2 });
    await settled('ignored', ...poisoned);
    const shown = await cli(['events', 'show', ids[0]]);
    expect(shown.stdout).toMatch(
      new RegExp(
        `^ {2}\\S+Z {2}settled ignored by hand by ${OS_ACTOR.replace(/[.$]/g, '\\$&')}: order deleted$`,
        'm',
      ),
    );
    const after = cliJson<GroupJson[]>(await cli(['events', 'groups', '--json']));
    expect(after.find((entry) => entry.fingerprint === group.fingerprint)).toBeUndefined();
  });

  it('pauses, lists and resumes dispatch; the events held show as paused', async () => {
    const unscoped = await cli(['pause']);
    expect(unscoped.code).toBe(2);
    expect(unscoped.stderr).toMatch(/give --endpoint <name>, --handler <key> or both; --all/);

    const paused = await cli([
      'pause',
      '--endpoint',
      'stripe',
      '--reason',
      'ERP down',
      '--actor',
      'carol',
    ]);
    expect(paused.code).toBe(0);
    const pausedAt = Date.now();
    expect(paused.stdout).toMatch(/^Paused dispatch of endpoint stripe, handler \(every\)\./);
    expect(paused.stdout).toContain(
      'Lift it with: nestjs-payment-webhooks resume --endpoint stripe',
    );
    expect((await cli(['pause', '--endpoint', 'stripe'])).stdout).toMatch(/was paused already/);

    expect(cliJson(await cli(['pauses', '--json']))).toEqual([
      expect.objectContaining({
        endpoint: 'stripe',
        handler: '*',
        pausedBy: 'carol',
        reason: 'ERP down',
      }),
    ]);
    const pauses = await cli(['pauses']);
    expect(pauses.stdout).toMatch(
      /^ENDPOINT\s+HANDLER\s+SINCE\s+BY\s+REASON\nstripe\s+\* \(every\)\s+\S+Z \(.* ago\)\s+carol\s+ERP down\n/,
    );

    // NOTE: the app, in another process than the CLI, uses the pauses it read for
    // PAUSES_REFRESH_MS; the last read it may still use came before the pause was stored, so the
    // pause holds there that long after it was stored at the latest. The commands above took
    // part of that time.
    const heldFrom = pausedAt + PAUSES_REFRESH_MS + 100;
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, heldFrom - Date.now())));
    const held = await deliver();
    await eventually(() => parkedByPause(app.dataSource, held.id));
    const [row] = cliJson<{ id: string; nextAttemptAt: string | null; paused: boolean }[]>(
      await cli(['events', 'list', '--event', held.id, '--json']),
    );
    expect(row).toMatchObject({ nextAttemptAt: null, paused: true });
    expect((await cli(['events', 'list', '--event', held.id])).stdout).toMatch(/ \w+ \(paused\) /);
    const shown = await cli(['events', 'show', row.id]);
    expect(shown.stdout).toMatch(/^ {2}next attempt +paused /m);
    // NOTE: the parking date (year 9999) shows nowhere as a time; the body's SHA-256 may hold
    // the digits, so the check is on the lines that print times.
    expect(shown.stdout).not.toMatch(/^ {2}[a-z ]+ +9999-/m);
    expect(shown.stdout).not.toMatch(/^ {4}9999-/m);
    expect(await countEffects(app, held.id)).toBe(0);

    const resumed = await cli(['resume', '--endpoint', 'stripe', '--json']);
    expect(cliJson(resumed)).toEqual({ endpoint: 'stripe', handler: '*', resumed: true, woken: 1 });
    await settled('processed', held);
    expect(await countEffects(app, held.id)).toBe(1);

    const again = await cli(['resume', '--endpoint', 'stripe']);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(
      /endpoint stripe, handler \(every\) is not paused; no pause is in force/,
    );
    expect((await cli(['pauses'])).stdout).toBe('Dispatch is not paused.\n');
  });
});
