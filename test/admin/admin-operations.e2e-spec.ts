import { post } from '../support/http';
import { parkedByPause } from '../support/inbox-state';
import { WebhookEventEntity } from '../support/internals';
import { SignedStripeEvent, signedStripeEvent, stripeEventId } from '../support/stripe-event';
import { countEffects, eventually, HandlerScript } from '../support/test-app';
import { AdminOpsApp, nestOpsApp, routerOpsApp, SECRET, TOKEN } from './admin-operations.apps';

/**
 * What an operator does over the admin routes when handlers fail: reads an event's timeline,
 * groups failures by cause, replays a group (after a dry run, at a rate) or discards it with a
 * reason, pauses dispatch while a downstream system is down, and filters by age. Each change
 * names its actor. The same cases on the Nest module and on the Express admin router.
 */

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const json = { 'content-type': 'application/json' };

interface Answer<T> {
  status: number;
  body: T;
}

interface HistoryEntry {
  kind: string;
  at: string;
  finishedAt: string | null;
  attempt: number | null;
  handlerKey: string | null;
  outcome: string;
  errorClass: string | null;
  error: string | null;
  fingerprint: string | null;
  actor: string | null;
  detail: string | null;
}

interface Group {
  endpoint: string;
  handlerKey: string | null;
  fingerprint: string;
  errorClass: string | null;
  count: number;
  dead: number;
  firstSeen: string;
  lastSeen: string;
  sampleId: string;
  sampleError: string | null;
}

interface Pause {
  endpoint: string;
  handler: string;
  pausedAt: string;
  pausedBy: string | null;
  reason: string | null;
}

interface Refusal {
  statusCode: number;
  message: string;
}

let sequence = 0;

/**
 * A payment event whose id is digits between its underscores (`evt_<pid>_<time>_<n>`), unlike
 * `stripeEventId()`'s base-36 time: a handler error naming the id masks to one fingerprint.
 */
function payment(): SignedStripeEvent {
  const id = `evt_${process.pid}_${Date.now() % 1_000_000_000}_${sequence++}`;
  return signedStripeEvent(SECRET, { id, orderId: `o-${id}`, amount: 700, currency: 'eur' });
}

/** A refund that succeeded (`refund.succeeded`); its dedup key is the refund's id and status. */
function refund(): SignedStripeEvent {
  const id = stripeEventId();
  const signed = signedStripeEvent(SECRET, {
    id,
    type: 'refund.created',
    object: {
      id: `re_${id}`,
      object: 'refund',
      status: 'succeeded',
      amount: 300,
      currency: 'eur',
      payment_intent: `pi_${id}`,
    },
  });
  return { ...signed, id: `re_${id}:succeeded` };
}

describe.each<[string, () => Promise<AdminOpsApp>]>([
  ['the Nest module on Express and SQLite', () => nestOpsApp('express', 'sqlite')],
  ['the Nest module on Fastify and PostgreSQL', () => nestOpsApp('fastify', 'postgres')],
  ['the Express admin router after express.json() on SQLite', () => routerOpsApp('sqlite', true)],
  ['the Express admin router on PostgreSQL', () => routerOpsApp('postgres', false)],
])('admin operations of %s', (_name, start) => {
  let app: AdminOpsApp;

  beforeAll(async () => {
    app = await start();
  });
  afterAll(() => app?.close());

  afterEach(async () => {
    app.control.scripts.clear();
    await call('POST', 'discard?status=dead,retrying', { body: { reason: 'end of a test' } });
    for (const pause of (await call<Pause[]>('GET', 'pauses')).body) {
      await call('POST', 'resume', { body: { endpoint: pause.endpoint, handler: pause.handler } });
    }
  });

  async function call<T = Record<string, unknown>>(
    method: 'GET' | 'POST',
    path: string,
    options: {
      body?: unknown;
      raw?: string;
      user?: Record<string, unknown>;
      headers?: Record<string, string>;
      signal?: AbortSignal;
    } = {},
  ): Promise<Answer<T>> {
    const response = await fetch(`${app.admin}/${path}`, {
      method,
      headers: {
        'x-admin-token': TOKEN,
        ...(method === 'POST' ? json : {}),
        ...(options.user ? { 'x-user': encodeURIComponent(JSON.stringify(options.user)) } : {}),
        ...options.headers,
      },
      body: method === 'POST' ? (options.raw ?? JSON.stringify(options.body ?? {})) : undefined,
      signal: options.signal,
    });
    return { status: response.status, body: (await response.json()) as T };
  }

  async function rowOf(eventId: string): Promise<WebhookEventEntity> {
    return app.dataSource.getRepository(WebhookEventEntity).findOneByOrFail({ eventId });
  }

  async function settledAs(status: string, ...events: SignedStripeEvent[]): Promise<void> {
    await eventually(async () =>
      (await Promise.all(events.map((event) => rowOf(event.id)))).every(
        (row) => row.status === status,
      ),
    );
  }

  /** Waits until the dispatcher has looked at each event and a pause held it. */
  async function heldByPause(...events: SignedStripeEvent[]): Promise<void> {
    await eventually(async () =>
      (await Promise.all(events.map((event) => parkedByPause(app.dataSource, event.id)))).every(
        Boolean,
      ),
    );
  }

  /** Delivers each event (its handler scripted), answered 200; their inbox ids. */
  async function deliver(events: SignedStripeEvent[], script?: HandlerScript): Promise<string[]> {
    for (const event of events) {
      if (script) {
        app.control.scripts.set(event.id, script);
      }
      const answer = await post(app.webhooks, event.body, event.headers);
      expect(answer.status).toBe(200);
    }
    await eventually(async () =>
      (
        await Promise.all(
          events.map((event) =>
            app.dataSource.getRepository(WebhookEventEntity).findOneBy({ eventId: event.id }),
          ),
        )
      ).every((row) => row !== null),
    );
    return Promise.all(events.map(async (event) => (await rowOf(event.id)).id));
  }

  /** Events whose handler failed for good, one failure cause per script. */
  async function deadEvents(count: number, script: HandlerScript): Promise<SignedStripeEvent[]> {
    const events = Array.from({ length: count }, () => payment());
    await deliver(events, script);
    await settledAs('dead', ...events);
    return events;
  }

  async function historyOf(id: string): Promise<HistoryEntry[]> {
    const shown = await call<{ history: HistoryEntry[] }>('GET', `events/${id}`);
    expect(shown.status).toBe(200);
    return shown.body.history;
  }

  async function groupOf(errorClass: string): Promise<Group> {
    const groups = await call<Group[]>('GET', 'groups?endpoint=stripe');
    return groups.body.find((group) => group.errorClass === errorClass)!;
  }

  it('shows an event’s timeline: each failed attempt, then the replay and who made it', async () => {
    const [event] = await deadEvents(1, { alwaysFail: true });
    const { id } = await rowOf(event.id);

    const shown = await call<{ event: { status: string }; history: HistoryEntry[] }>(
      'GET',
      `events/${id}`,
    );
    expect(shown.status).toBe(200);
    expect(shown.body.event.status).toBe('dead');
    const attempts = shown.body.history;
    expect(attempts.map((entry) => [entry.kind, entry.attempt, entry.outcome])).toEqual([
      ['attempt', 1, 'retrying'],
      ['attempt', 2, 'dead'],
    ]);
    for (const entry of attempts) {
      expect(entry).toMatchObject({ handlerKey: app.handlers.payments, errorClass: 'Error' });
      expect(entry.at).toMatch(ISO);
      expect(entry.finishedAt).toMatch(ISO);
      const [message, frame] = entry.error!.split('\n');
      expect(message).toBe(`Error: handler failure on attempt ${entry.attempt}`);
      expect(frame).toMatch(/^ {4}at /);
    }
    expect(attempts[0].fingerprint).toBe(attempts[1].fingerprint);

    app.control.scripts.delete(event.id);
    const redelivered = await call('POST', `events/${id}/redeliver`, { user: { username: 'ann' } });
    expect(redelivered).toEqual({ status: 200, body: { redelivered: id } });
    await settledAs('processed', event);
    expect((await historyOf(id)).at(-1)).toMatchObject({
      kind: 'replay',
      outcome: 'dead',
      actor: 'ann',
    });
    expect(await countEffects(app, event.id)).toBe(1);
  });

  it('groups dead events by cause, narrowed by endpoint, handler, error, fingerprint and status', async () => {
    const flaky = await deadEvents(2, { alwaysFail: true });
    const poisoned = await deadEvents(1, { nonRetryable: true });
    const flakyIds = await Promise.all(flaky.map(async (event) => (await rowOf(event.id)).id));

    const all = await call<Group[]>('GET', 'groups?endpoint=stripe');
    expect(all.status).toBe(200);
    expect(all.body.map((group) => [group.errorClass, group.count, group.dead])).toEqual([
      ['Error', 2, 2],
      ['NonRetryableError', 1, 1],
    ]);
    const [flakyGroup, poisonGroup] = all.body;
    expect(flakyGroup).toMatchObject({ endpoint: 'stripe', handlerKey: app.handlers.payments });
    expect(flakyGroup.firstSeen).toMatch(ISO);
    expect(flakyGroup.lastSeen).toMatch(ISO);
    expect(flakyIds).toContain(flakyGroup.sampleId);
    expect(flakyGroup.sampleError).toMatch(/^Error: handler failure on attempt 2\n/);
    expect(poisonGroup.sampleId).toBe((await rowOf(poisoned[0].id)).id);

    const groups = async (query: string) => (await call<Group[]>('GET', `groups?${query}`)).body;
    expect(await groups('error=CAN%20NEVER%20BE%20APPLIED')).toEqual([poisonGroup]);
    expect(await groups(`fingerprint=${flakyGroup.fingerprint}`)).toEqual([flakyGroup]);
    expect(await groups(`handler=${app.handlers.payments}&limit=1`)).toEqual([flakyGroup]);
    expect(await groups('handler=Nobody.here')).toEqual([]);
    expect(await groups('endpoint=elsewhere')).toEqual([]);
    expect(await groups('status=retrying')).toEqual([]);
    expect(await groups('status=dead,retrying')).toEqual(all.body);

    for (const [query, rule] of [
      ['status=processed', /status must be one or more of dead, retrying/],
      ['limit=0', /limit must be a whole number from 1 to 1000/],
      ['since=1h', /unknown query parameter "since"/],
      ['error=', /error must be given once, as a non-empty text/],
    ] as const) {
      const refused = await call<Refusal>('GET', `groups?${query}`);
      expect(refused.status).toBe(400);
      expect(refused.body.message).toMatch(rule);
    }
  });

  it('replays a failure group after a dry run, at the rate asked for, once per handler', async () => {
    const flaky = await deadEvents(3, { alwaysFail: true });
    const ids = await Promise.all(flaky.map(async (event) => (await rowOf(event.id)).id));
    const { fingerprint } = await groupOf('Error');
    const group = `fingerprint=${fingerprint}&status=dead,retrying`;

    const dryRun = await call<{ replayed: number; wouldReplay: number; sample: string[] }>(
      'POST',
      `replay?${group}&dryRun=true`,
    );
    expect(dryRun.status).toBe(200);
    expect(dryRun.body).toEqual({ replayed: 0, wouldReplay: 3, sample: expect.any(Array) });
    expect([...dryRun.body.sample].sort()).toEqual([...ids].sort());
    const byText = await call(
      'POST',
      `replay?handler=${app.handlers.payments}&error=HANDLER%20FAILURE&dryRun=true`,
    );
    expect(byText.body).toMatchObject({ replayed: 0, wouldReplay: 3 });
    const nobody = await call<Refusal>('POST', 'replay?handler=Nobody.here&dryRun=true');
    expect(nobody.status).toBe(400);
    expect(nobody.body.message).toMatch(/^No handler is named "Nobody.here"; the registered/);

    for (const [path, body, rule] of [
      [`replay?${group}&rate=0`, {}, /rate must be a number of events per second above 0/],
      [`replay?${group}&rate=fast`, {}, /rate must be a number/],
      [`replay?${group}&dryRun=yes`, {}, /dryRun must be true or false/],
      [`replay?${group}&fingerprint=other`, {}, /fingerprint must be given once/],
      ['replay?status=pending', {}, /status must be one or more of processed, ignored, dead/],
      ['replay?since=yesterday', {}, /since must be an age such as 30d, 12h or 15m/],
      ['replay', { fingerprint }, /Unknown body field "fingerprint": replay takes a body of \{\}/],
    ] as const) {
      const refused = await call<Refusal>('POST', path, { body });
      expect(refused.status).toBe(400);
      expect(refused.body.message).toMatch(rule);
    }
    for (const event of flaky) {
      expect((await rowOf(event.id)).status).toBe('dead');
      expect(await countEffects(app, event.id)).toBe(0);
    }

    flaky.forEach((event) => app.control.scripts.delete(event.id));
    const started = Date.now();
    const replayed = await call('POST', `replay?${group}&rate=5`, {
      user: { email: 'bob@example.com' },
    });
    // NOTE: at 5 a second, one event every 200 ms from the first: the third 400 ms after it.
    expect(Date.now() - started).toBeGreaterThanOrEqual(360);
    expect(replayed).toEqual({ status: 200, body: { replayed: 3 } });
    await settledAs('processed', ...flaky);
    for (const event of flaky) {
      expect(await countEffects(app, event.id)).toBe(1);
    }
    const replay = (await historyOf(ids[0])).at(-1)!;
    expect(replay).toMatchObject({ kind: 'replay', outcome: 'dead', actor: 'bob@example.com' });
    expect(JSON.parse(replay.detail!)).toEqual({ fingerprint, status: ['dead', 'retrying'] });
  });

  it('stops a rate-limited replay when the client goes away, keeping what it put back', async () => {
    const flaky = await deadEvents(3, { alwaysFail: true });
    const { fingerprint } = await groupOf('Error');
    flaky.forEach((event) => app.control.scripts.delete(event.id));

    const gone = new AbortController();
    const replaying = call('POST', `replay?fingerprint=${fingerprint}&rate=1`, {
      signal: gone.signal,
    });
    // NOTE: one event per second: the first is put back at once, the next would be a second
    // later. The client goes away once the first is back, and the next must never come.
    const statusesNow = () =>
      Promise.all(flaky.map(async (event) => (await rowOf(event.id)).status));
    await eventually(async () => (await statusesNow()).some((status) => status !== 'dead'));
    gone.abort();
    await expect(replaying).rejects.toThrow();
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const statuses = await statusesNow();
    expect(statuses.filter((status) => status === 'processed')).toHaveLength(1);
    expect(statuses.filter((status) => status === 'dead')).toHaveLength(2);
  });

  it('discards a failure group with a reason, after a dry run, and refuses one without', async () => {
    const poisoned = await deadEvents(2, { nonRetryable: true });
    const { fingerprint } = await groupOf('NonRetryableError');
    const group = `discard?fingerprint=${fingerprint}`;

    for (const [path, body, rule] of [
      [group, {}, /reason of discard must say why/],
      [group, { reason: '  ' }, /reason of discard must say why/],
      [
        group,
        { reason: 'x'.repeat(501) },
        /reason of discard must be a non-empty text of at most 500/,
      ],
      [group, { reason: 'gone', dryRun: 'yes' }, /dryRun of discard must be true or false/],
      [
        group,
        { reason: 'gone', fingerprint },
        /Unknown body field "fingerprint": discard takes reason, dryRun/,
      ],
      [
        'discard?status=processed',
        { reason: 'gone' },
        /status must be one or more of dead, retrying/,
      ],
      ['discard?limit=5', { reason: 'gone' }, /unknown query parameter "limit"/],
    ] as const) {
      const refused = await call<Refusal>('POST', path, { body });
      expect(refused.status).toBe(400);
      expect(refused.body.message).toMatch(rule);
    }

    const dryRun = await call('POST', group, { body: { reason: 'order deleted', dryRun: true } });
    expect(dryRun).toEqual({ status: 200, body: { discarded: 0, wouldDiscard: 2 } });
    await settledAs('dead', ...poisoned);

    const discarded = await call('POST', group, {
      body: { reason: 'order deleted' },
      user: { sub: 'auth0|carol' },
    });
    expect(discarded).toEqual({ status: 200, body: { discarded: 2 } });
    await settledAs('ignored', ...poisoned);
    for (const event of poisoned) {
      expect(await countEffects(app, event.id)).toBe(0);
    }
    expect((await historyOf((await rowOf(poisoned[0].id)).id)).at(-1)).toMatchObject({
      kind: 'settle',
      outcome: 'ignored',
      actor: 'auth0|carol',
      detail: 'order deleted',
    });
    expect((await call('GET', 'groups')).body).toEqual([]);
  });

  it('pauses an endpoint: deliveries are answered and stored, and run once it is resumed', async () => {
    const paused = await call('POST', 'pause', {
      body: { endpoint: 'stripe', reason: 'ERP down' },
      user: { username: 'dave' },
    });
    expect(paused).toEqual({
      status: 200,
      body: { paused: true, endpoint: 'stripe', handler: '*' },
    });
    const again = await call('POST', 'pause', { body: { endpoint: 'stripe' } });
    expect(again.body).toEqual({ paused: false, endpoint: 'stripe', handler: '*' });
    const pauses = await call<Pause[]>('GET', 'pauses');
    expect(pauses.body).toEqual([
      {
        endpoint: 'stripe',
        handler: '*',
        pausedAt: expect.stringMatching(ISO),
        pausedBy: 'dave',
        reason: 'ERP down',
      },
    ]);
    // NOTE: a pause made through this app's admin holds its own dispatcher at once.
    const held = [payment(), payment()];
    await deliver(held);
    await heldByPause(...held);
    for (const event of held) {
      expect(await countEffects(app, event.id)).toBe(0);
      expect(['pending', 'retrying']).toContain((await rowOf(event.id)).status);
    }

    const resumed = await call('POST', 'resume', { body: { endpoint: 'stripe' } });
    expect(resumed).toEqual({
      status: 200,
      body: { resumed: 2, endpoint: 'stripe', handler: '*' },
    });
    const notPaused = await call<Refusal>('POST', 'resume', { body: { endpoint: 'stripe' } });
    expect(notPaused.status).toBe(404);
    expect(notPaused.body.message).toMatch(/Dispatch was not paused for endpoint stripe/);
    await settledAs('processed', ...held);
    for (const event of held) {
      expect(await countEffects(app, event.id)).toBe(1);
    }
    expect((await call('GET', 'pauses')).body).toEqual([]);
  });

  it('pauses one handler while the others run', async () => {
    const paused = await call('POST', 'pause', { body: { handler: app.handlers.refunds } });
    expect(paused.body).toEqual({ paused: true, endpoint: '*', handler: app.handlers.refunds });

    const [ran, held] = [payment(), refund()];
    await deliver([ran, held]);
    await settledAs('processed', ran);
    await heldByPause(held);
    expect(await countEffects(app, held.id)).toBe(0);

    const resumed = await call('POST', 'resume', { body: { handler: app.handlers.refunds } });
    expect(resumed.body).toEqual({ resumed: 1, endpoint: '*', handler: app.handlers.refunds });
    await settledAs('processed', held);
    expect(await countEffects(app, held.id)).toBe(1);
  });

  it('refuses a pause or resume it cannot read with 400, and pauses nothing', async () => {
    for (const [path, options, rule] of [
      ['pause?endpoint=stripe', { body: {} }, /pause takes no query parameter \(got "endpoint"\)/],
      [
        'pause',
        { body: { endpiont: 'stripe' } },
        /Unknown body field "endpiont": pause takes endpoint, handler, reason/,
      ],
      ['pause', { raw: '["stripe"]' }, /must be a JSON object/],
      ['pause', { body: { endpoint: '' } }, /endpoint of pause must be a non-empty text/],
      ['pause', { body: { endpoint: 'x'.repeat(65) } }, /at most 64 characters/],
      ['pause', { body: { handler: 7 } }, /handler of pause must be a non-empty text/],
      ['pause', { body: { reason: 'ERP\ndown' } }, /without control characters/],
      [
        'resume',
        { body: { endpoint: 'stripe', reason: 'back' } },
        /Unknown body field "reason": resume takes endpoint, handler/,
      ],
    ] as const) {
      const refused = await call<Refusal>('POST', path, options);
      expect(refused.status).toBe(400);
      expect(refused.body.message).toMatch(rule);
    }
    expect((await call('GET', 'pauses')).body).toEqual([]);
    const nothing = await call<Refusal>('POST', 'resume', { body: {} });
    expect(nothing.status).toBe(404);
    expect(nothing.body.message).toMatch(/not paused for endpoint \(every\), handler \(every\)/);
  });

  it('reads since and until as ages (24h, 30m) or ISO times', async () => {
    const event = payment();
    await deliver([event]);
    await settledAs('processed', event);
    const listed = async (query: string) =>
      (await call<{ eventId: string }[]>('GET', `events?eventId=${event.id}&${query}`)).body.map(
        (row) => row.eventId,
      );
    expect(await listed('since=1h')).toEqual([event.id]);
    expect(await listed('since=24h&until=30m')).toEqual([]);
    expect(await listed('since=1.5d')).toEqual([event.id]);
    expect(await listed('since=2020-01-01&until=1h')).toEqual([]);
    const dryRun = await call(
      'POST',
      `replay?eventId=${event.id}&status=processed&since=2h&dryRun=true`,
    );
    expect(dryRun.body).toMatchObject({ replayed: 0, wouldReplay: 1 });

    for (const [query, rule] of [
      ['since=1h&until=2h', /since must be before until/],
      ['since=3x', /since must be an age such as 30d, 12h or 15m .* or an ISO 8601 time/],
      ['until=-5m', /until must be an age/],
      ['since=99999999d', /since must be a time from 1970-01-01T00:00:00Z/],
    ] as const) {
      const refused = await call<Refusal>('GET', `events?${query}`);
      expect(refused.status).toBe(400);
      expect(refused.body.message).toMatch(rule);
    }
  });

  it('keeps the request’s user, or its address, as the actor, without control characters', async () => {
    const [event] = await deadEvents(1, { nonRetryable: true });
    const { id } = await rowOf(event.id);
    const settle = (user?: Record<string, unknown>) =>
      call('POST', `events/${id}/settle`, { body: { status: 'dead', reason: 'checked' }, user });

    for (const user of [
      undefined,
      { username: 'eve\n\u202eadmin\u0000', id: { nested: true } },
      { id: 42, username: 'frank' },
      { name: 'n'.repeat(300) },
      { email: '\u0007', name: 'grace' },
      { username: '\u0000\t' },
    ]) {
      expect((await settle(user)).status).toBe(200);
    }
    const actors = (await historyOf(id))
      .filter((entry) => entry.kind === 'settle')
      .map((entry) => entry.actor);
    expect(actors).toEqual([
      'http 127.0.0.1',
      'eve admin',
      '42',
      'n'.repeat(64),
      'grace',
      'http 127.0.0.1',
    ]);
  });

  it('keeps the guard and the write checks on the new routes', async () => {
    for (const path of ['replay?dryRun=true', 'discard', 'pause', 'resume']) {
      const body = JSON.stringify(path === 'discard' ? { reason: 'form' } : {});
      const form = await call<Refusal>('POST', path, {
        raw: body,
        headers: { 'content-type': 'text/plain' },
      });
      expect(form.status).toBe(415);
      const crossSite = await call<Refusal>('POST', path, {
        raw: body,
        headers: { 'sec-fetch-site': 'cross-site' },
      });
      expect(crossSite.status).toBe(403);
      expect(crossSite.body.message).toMatch(/must come from the same origin/);
      const stranger = await call('POST', path, { raw: body, headers: { 'x-admin-token': 'no' } });
      expect(stranger.status).toBe(403);
    }
    for (const path of ['groups', 'pauses']) {
      expect((await call('GET', path, { headers: { 'x-admin-token': 'no' } })).status).toBe(403);
    }
    expect((await call('GET', 'pauses')).body).toEqual([]);
  });
});
