import { createHash, randomUUID } from 'node:crypto';
import { DataSource, DataSourceOptions } from 'typeorm';
import { eventOf01, EventOf01 } from './inbox-0.1';
import { InboxRows, inboxRows } from './inbox-0.2';
import { createInboxOf03, MIGRATIONS_OF_0_3 } from './inbox-0.3';
import { AddEventHistory1764900000000 } from './internals';

/** The migrations of release 1.0: the events' history, the pauses and the replays, before recoveries. */
export const MIGRATIONS_OF_1_0 = [...MIGRATIONS_OF_0_3, AddEventHistory1764900000000];

/** A Stripe row 1.0 stored besides the seeded snapshot events: an event notification. */
export interface StoredNotificationOf10 {
  readonly eventId: string;
  /** The snapshot event it names, if any (none for a v2 resource). */
  readonly snapshotEvent?: string;
  /** The seeded event whose receive time it takes: its age among the rows. */
  readonly receivedAs: string;
  /** Its type (`v1.payment_intent.succeeded` unless set). */
  readonly type?: string;
}

/** A notification body as Stripe sends it to an event destination of thin events. */
export function notificationBodyOf10(
  eventId: string,
  snapshotEvent?: string,
  type = 'v1.payment_intent.succeeded',
): string {
  return JSON.stringify({
    id: eventId,
    object: 'v2.core.event',
    type,
    livemode: false,
    created: '2026-01-01T00:00:00.000Z',
    ...(snapshotEvent ? { snapshot_event: snapshotEvent } : {}),
  });
}

/** Every row of the package's tables as 1.0 has them, each table in a fixed order. */
export interface InboxRowsOf10 extends InboxRows {
  readonly transmissions: Record<string, unknown>[];
  readonly history: Record<string, unknown>[];
  readonly pauses: Record<string, unknown>[];
  readonly replays: Record<string, unknown>[];
}

/** The replays in the background an inbox of 1.0 holds, by id: one of each status 1.0 has. */
export const REPLAYS_OF_1_0 = {
  /** Every dead event, two of them put back, held by an instance that has gone. */
  running: '10000000-0000-4000-8000-000000000001',
  /** The failures recorded before the history, all put back. */
  done: '10000000-0000-4000-8000-000000000002',
  /** Dead and retrying events, canceled after three. */
  canceled: '10000000-0000-4000-8000-000000000003',
} as const;

/** Who started the replays of 1.0. */
export const ACTOR_OF_1_0 = 'ops@1.0';

/** The dead events the running replay of 1.0 put back before its cursor, oldest first. */
export const REPLAYED_BEFORE_UPGRADE = 2;

/** The dead events of a seeded inbox, in the order a replay puts them back. */
export function deadEventsOf(events: number, start: Date, handlerKeys: readonly string[]) {
  return Array.from({ length: events }, (_, n) => eventOf01(n, start, handlerKeys))
    .filter((event) => event.status === 'dead')
    .sort(
      (a, b) =>
        a.receivedAt.getTime() - b.receivedAt.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
    );
}

/**
 * Makes an inbox of 1.0 in the database of `options`: a seeded inbox of 0.3 (see
 * `createInboxOf03()`) upgraded by 1.0's own migration, so each dead or retrying event has its
 * `attempt` row and each event settled by hand its `settle` row; then, as 1.0 writes them, a
 * pause of one handler, and the replays of `REPLAYS_OF_1_0`: the running one has put back the
 * first `REPLAYED_BEFORE_UPGRADE` dead events (each with its `replay` row and a failed attempt
 * after it) and is leased, its lease run out, to an instance that has gone; and the event
 * notifications of `notifications` stored at endpoint `stripe-thin` as 1.0 stored them (a row of
 * their own, whatever snapshot event they name).
 */
export async function createInboxOf10(
  options: DataSourceOptions,
  seed: {
    events: number;
    start: Date;
    handlerKeys: readonly string[];
    byHand?: readonly string[];
    notifications?: readonly StoredNotificationOf10[];
  },
): Promise<void> {
  await createInboxOf03(options, seed);
  const of10 = await new DataSource({
    ...options,
    migrations: MIGRATIONS_OF_1_0,
    migrationsRun: true,
  }).initialize();
  try {
    await seedOf10(of10, seed);
    await storeNotificationsOf10(of10, seed.notifications ?? []);
  } finally {
    await of10.destroy();
  }
}

async function storeNotificationsOf10(
  of10: DataSource,
  notifications: readonly StoredNotificationOf10[],
): Promise<void> {
  const p = (n: number) => (of10.options.type === 'postgres' ? `$${n}` : '?');
  for (const { eventId, snapshotEvent, receivedAs, type } of notifications) {
    const body = notificationBodyOf10(eventId, snapshotEvent, type);
    await of10.query(
      'INSERT INTO webhook_events (id, endpoint, tenant, provider, event_id, type, native_type, ' +
        'received_at, raw_body, body_sha256, headers, status, processed_at) ' +
        `SELECT ${p(1)}, 'stripe-thin', '', 'stripe', ${p(2)}, type, ${p(3)}, received_at, ` +
        `${p(4)}, ${p(5)}, headers, 'ignored', received_at FROM webhook_events ` +
        `WHERE event_id = ${p(6)}`,
      [
        randomUUID(),
        eventId,
        type ?? 'v1.payment_intent.succeeded',
        body,
        createHash('sha256').update(body).digest('hex'),
        receivedAs,
      ],
    );
  }
}

async function seedOf10(
  of10: DataSource,
  seed: { events: number; start: Date; handlerKeys: readonly string[] },
): Promise<void> {
  const postgres = of10.options.type === 'postgres';
  const date = (value: Date | null) =>
    value === null || postgres ? value : value.toISOString().replace('T', ' ').replace('Z', '');
  const insert = (table: string, row: Record<string, unknown>) =>
    of10.query(
      `INSERT INTO ${table} (${Object.keys(row).join(', ')}) VALUES (` +
        `${Object.keys(row)
          .map((_, i) => (postgres ? `$${i + 1}` : '?'))
          .join(', ')})`,
      Object.values(row).map((value) => (value instanceof Date ? date(value) : value)),
    );
  const at = (minutes: number) => new Date(seed.start.getTime() + minutes * 60_000);
  const dead = deadEventsOf(seed.events, seed.start, seed.handlerKeys);
  const cursor: EventOf01 = dead[REPLAYED_BEFORE_UPGRADE - 1];

  await insert('webhook_pauses', {
    endpoint: 'stripe',
    handler_key: 'Mail.onPaid',
    paused_at: at(50),
    paused_by: ACTOR_OF_1_0,
    reason: 'mail provider down',
  });
  for (const [i, event] of dead.slice(0, REPLAYED_BEFORE_UPGRADE).entries()) {
    await insert('webhook_history', {
      id: `20000000-0000-4000-8000-00000000000${i}`,
      event_id: event.id,
      kind: 'replay',
      at: at(61),
      outcome: 'dead',
      actor: ACTOR_OF_1_0,
      detail: JSON.stringify({ replay: REPLAYS_OF_1_0.running, status: 'dead' }),
    });
    await insert('webhook_history', {
      id: `30000000-0000-4000-8000-00000000000${i}`,
      event_id: event.id,
      kind: 'attempt',
      at: at(62),
      finished_at: at(62),
      attempt: event.attempts + 1,
      handler_key: seed.handlerKeys[0],
      outcome: 'dead',
      error_class: 'Error',
      error: 'card network down',
      fingerprint: 'e'.repeat(64),
      worker: 'worker-that-was-stopped',
    });
  }
  const job = (row: Record<string, unknown>) =>
    insert('webhook_replays', { actor: ACTOR_OF_1_0, ...row });
  await job({
    id: REPLAYS_OF_1_0.running,
    filter: JSON.stringify({ status: 'dead' }),
    status: 'running',
    total: dead.length,
    replayed: REPLAYED_BEFORE_UPGRADE,
    created_at: at(60),
    updated_at: at(61),
    cursor_at: cursor.receivedAt,
    cursor_id: cursor.id,
    locked_by: 'worker-that-was-stopped',
    locked_until: at(61.25),
  });
  await job({
    id: REPLAYS_OF_1_0.done,
    filter: JSON.stringify({ fingerprint: 'before-history' }),
    status: 'done',
    total: 5,
    replayed: 5,
    rate_per_second: 10,
    created_at: at(40),
    updated_at: at(41),
    finished_at: at(41),
    cursor_at: at(1),
    cursor_id: cursor.id,
  });
  await job({
    id: REPLAYS_OF_1_0.canceled,
    filter: JSON.stringify({ status: ['dead', 'retrying'], since: seed.start.toISOString() }),
    status: 'canceled',
    total: 20,
    replayed: 3,
    rate_per_second: 1,
    actor: null,
    created_at: at(45),
    updated_at: at(46),
    finished_at: at(46),
    cursor_at: at(0.5),
    cursor_id: cursor.id,
    error: 'connection reset',
  });
}

/** Reads every row of every table of the package through `dataSource`. */
export async function inboxRowsOf10(dataSource: DataSource): Promise<InboxRowsOf10> {
  return {
    ...(await inboxRows(dataSource)),
    transmissions: await dataSource.query('SELECT * FROM webhook_transmissions ORDER BY 1, 2'),
    history: await dataSource.query('SELECT * FROM webhook_history ORDER BY id'),
    pauses: await dataSource.query('SELECT * FROM webhook_pauses ORDER BY endpoint, handler_key'),
    replays: await dataSource.query('SELECT * FROM webhook_replays ORDER BY id'),
  };
}
