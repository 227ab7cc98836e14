import { createHash } from 'node:crypto';
import { DataSource } from 'typeorm';
import { AddEventOutcomes1764500000000, CreateWebhooksTables1764400000000 } from './internals';

/**
 * The migrations of release 0.1: its inbox has the queue on `webhook_events` itself, and no
 * `webhook_transmissions` (0.2 added it, see CHANGELOG.md).
 */
export const MIGRATIONS_OF_0_1 = [CreateWebhooksTables1764400000000, AddEventOutcomes1764500000000];

/** The statuses an inbox of 0.1 holds, each seeded in turn. */
export const STATUSES_OF_0_1 = [
  'pending',
  'processing',
  'retrying',
  'processed',
  'ignored',
  'dead',
] as const;

export type StatusOf01 = (typeof STATUSES_OF_0_1)[number];

/** One event row as 0.1 wrote it, with the ledger rows its handlers left. */
export interface EventOf01 {
  id: string;
  endpoint: string;
  eventId: string;
  paymentRef: string;
  status: StatusOf01;
  receivedAt: Date;
  attempts: number;
  nextAttemptAt: Date | null;
  lockedBy: string | null;
  lockedUntil: Date | null;
  lastError: string | null;
  processedAt: Date | null;
  deliveryCount: number;
  outcome: string | null;
  rawBody: string;
  /** Handler keys with a ledger row. */
  ledger: string[];
}

const EVENT_COLUMNS =
  'id, endpoint, provider, event_id, type, native_type, payment_ref, merchant_ref, amount, ' +
  'currency, payment_status, occurred_at, received_at, raw_body, body_sha256, headers, status, ' +
  'attempts, next_attempt_at, locked_by, locked_until, last_error, processed_at, ' +
  'delivery_count, outcome, provider_status';
const LEDGER_COLUMNS = 'id, event_id, handler_key, attempt, finished_at, outcome';

/** A version 4 UUID made from `n`, as 0.1's ids were random ones (sortable in tests). */
function uuidOf(prefix: string, n: number): string {
  const hex = createHash('sha256').update(`${prefix}:${n}`).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-8${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/**
 * The `n`-th event of a seeded 0.1 inbox: statuses in turn, Stripe payment events received
 * `n` seconds after `start`, each processed or dead one with ledger rows, a retrying one
 * failed once, a processing one leased to a worker that has gone.
 */
export function eventOf01(n: number, start: Date, handlerKeys: readonly string[]): EventOf01 {
  const status = STATUSES_OF_0_1[n % STATUSES_OF_0_1.length];
  const at = new Date(start.getTime() + n * 1000);
  const eventId = `evt_before_upgrade_${n}`;
  const paymentRef = `pi_before_upgrade_${n}`;
  const rawBody = JSON.stringify({
    id: eventId,
    object: 'event',
    type: 'payment_intent.succeeded',
    created: Math.floor(at.getTime() / 1000),
    data: {
      object: {
        id: paymentRef,
        object: 'payment_intent',
        amount: 1999,
        currency: 'eur',
        status: 'succeeded',
        metadata: { order_id: `order-${n}` },
      },
    },
  });
  const settled = status === 'processed' || status === 'ignored';
  return {
    id: uuidOf('event', n),
    endpoint: 'stripe',
    eventId,
    paymentRef,
    status,
    receivedAt: at,
    attempts: { pending: 0, processing: 1, retrying: 2, processed: 1, ignored: 0, dead: 5 }[status],
    nextAttemptAt:
      status === 'pending'
        ? at
        : status === 'retrying'
          ? new Date(at.getTime() + 60_000)
          : status === 'processing'
            ? at
            : null,
    lockedBy: status === 'processing' ? 'worker-that-was-stopped' : null,
    lockedUntil: status === 'processing' ? new Date(at.getTime() + 30_000) : null,
    lastError:
      status === 'retrying' || status === 'dead' ? `card network down (attempt ${n})` : null,
    processedAt: settled ? new Date(at.getTime() + 100) : null,
    deliveryCount: 1 + (n % 3),
    outcome: status === 'processed' ? 'applied' : null,
    rawBody,
    ledger:
      status === 'processed'
        ? [...handlerKeys]
        : status === 'dead' || status === 'retrying'
          ? handlerKeys.slice(0, 1)
          : [],
  };
}

/**
 * Writes events `from` to `to` (exclusive) of a 0.1 inbox into `dataSource`, whose tables
 * `MIGRATIONS_OF_0_1` made, with multi-row inserts in transactions of `batch` events.
 */
export async function seedInboxOf01(
  dataSource: DataSource,
  {
    from = 0,
    to,
    start,
    handlerKeys,
    batch = 500,
  }: {
    from?: number;
    to: number;
    start: Date;
    handlerKeys: readonly string[];
    batch?: number;
  },
): Promise<void> {
  const postgres = dataSource.options.type === 'postgres';
  const date = (value: Date | null) =>
    value === null
      ? null
      : postgres
        ? value
        : value.toISOString().replace('T', ' ').replace('Z', '');
  for (let first = from; first < to; first += batch) {
    const events = Array.from({ length: Math.min(batch, to - first) }, (_, i) =>
      eventOf01(first + i, start, handlerKeys),
    );
    await dataSource.transaction(async (manager) => {
      const params: unknown[] = [];
      const bind = (value: unknown) => {
        params.push(value);
        return postgres ? `$${params.length}` : '?';
      };
      const rows = events.map((event) => {
        const at = event.receivedAt;
        const values = [
          event.id,
          event.endpoint,
          'stripe',
          event.eventId,
          'payment.succeeded',
          'payment_intent.succeeded',
          event.paymentRef,
          'order',
          1999,
          'EUR',
          'succeeded',
          date(at),
          date(at),
          event.rawBody,
          createHash('sha256').update(event.rawBody).digest('hex'),
          JSON.stringify({ 'content-type': 'application/json', 'user-agent': 'Stripe/1.0' }),
          event.status,
          event.attempts,
          date(event.nextAttemptAt),
          event.lockedBy,
          date(event.lockedUntil),
          event.lastError,
          date(event.processedAt),
          event.deliveryCount,
          event.outcome,
          null,
        ];
        return `(${values.map(bind).join(', ')})`;
      });
      await manager.query(
        `INSERT INTO webhook_events (${EVENT_COLUMNS}) VALUES ${rows.join(', ')}`,
        params,
      );
      const ledgerParams: unknown[] = [];
      const ledgerBind = (value: unknown) => {
        ledgerParams.push(value);
        return postgres ? `$${ledgerParams.length}` : '?';
      };
      const ledger = events.flatMap((event, i) =>
        event.ledger.map(
          (key, k) =>
            `(${[
              uuidOf('run', (first + i) * 8 + k),
              event.id,
              key,
              1,
              date(event.processedAt ?? new Date(event.receivedAt.getTime() + 50)),
              event.status === 'processed' ? 'applied' : null,
            ]
              .map(ledgerBind)
              .join(', ')})`,
        ),
      );
      if (ledger.length > 0) {
        await manager.query(
          `INSERT INTO webhook_handler_runs (${LEDGER_COLUMNS}) VALUES ${ledger.join(', ')}`,
          ledgerParams,
        );
      }
    });
  }
}
