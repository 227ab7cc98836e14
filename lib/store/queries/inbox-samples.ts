import { EntityManager, SelectQueryBuilder } from 'typeorm';
import { WebhookEventEntity } from '../schema/entities/webhook-event.entity';
import { WebhookWorkEntity } from '../schema/entities/webhook-work.entity';
import { fittedTo } from '../schema/fitted-value';
import type { InboxSampleRows, PaymentEventTime } from '../ports/inbox-queries.port';
import { dateOf } from '../schema/stored-date';
import { WebhookEventStatus, WORK_STATUSES } from '../ports/webhook-event-status';

/** Per endpoint, a date column's aggregate as a Date; rows without a date are left out. */
function dated(
  rows: readonly { endpoint: string; at: unknown }[],
): { endpoint: string; at: Date }[] {
  return rows.flatMap((row) => {
    const at = dateOf(row.at);
    return at ? [{ endpoint: row.endpoint, at }] : [];
  });
}

/** The three reads of one inbox sample, in the caller's transaction. */
export async function sampleInbox(
  manager: EntityManager,
  statuses: readonly WebhookEventStatus[],
  since: Date | null,
): Promise<InboxSampleRows> {
  const events = () => manager.createQueryBuilder(WebhookEventEntity, 'e');
  // NOTE: events still to run, running, retrying or dead are counted on their work rows, a
  // small table; processed and ignored ones, which have none, on the inbox.
  const working = statuses.filter((status) => WORK_STATUSES.includes(status));
  const settled = statuses.filter((status) => !WORK_STATUSES.includes(status));
  const work = () =>
    manager
      .createQueryBuilder(WebhookWorkEntity, 'w')
      .innerJoin(WebhookEventEntity, 'e', 'e.id = w.event_id');
  // NOTE: one count per endpoint and status, of `alias`'s status among `among`.
  const counted = async (
    query: SelectQueryBuilder<object>,
    alias: 'w' | 'e',
    among: readonly WebhookEventStatus[],
  ) =>
    among.length === 0
      ? []
      : query
          .select('e.endpoint', 'endpoint')
          .addSelect(`${alias}.status`, 'status')
          .addSelect('COUNT(*)', 'count')
          .where(`${alias}.status IN (:...among)`, { among })
          .groupBy('e.endpoint')
          .addGroupBy(`${alias}.status`)
          .getRawMany<{ endpoint: string; status: WebhookEventStatus; count: string | number }>();
  const depth = [
    ...(await counted(work(), 'w', working)),
    ...(await counted(events(), 'e', settled)),
  ];
  const oldest = await work()
    .select('e.endpoint', 'endpoint')
    .addSelect('MIN(e.received_at)', 'at')
    .where("w.status = 'pending'")
    .groupBy('e.endpoint')
    .getRawMany<{ endpoint: string; at: unknown }>();
  const last = events().select('e.endpoint', 'endpoint').addSelect('MAX(e.received_at)', 'at');
  if (since !== null) {
    // NOTE: a range of the received_at index; only the first sample reads the whole table.
    last.where('e.received_at > :since', { since });
  }
  const latest = await last.groupBy('e.endpoint').getRawMany<{ endpoint: string; at: unknown }>();
  return {
    depth: depth.map(({ endpoint, status, count }) => ({ endpoint, status, count: Number(count) })),
    oldestPending: dated(oldest),
    latest: dated(latest),
  };
}

/**
 * Per endpoint and receipt time, the events of each payment: one statement on the
 * `payment_ref` index. A payment has a handful of receipt times; only a storm has many.
 */
export async function paymentEventTimes(
  manager: EntityManager,
  paymentRefs: readonly string[],
): Promise<PaymentEventTime[]> {
  if (paymentRefs.length === 0) {
    return [];
  }
  // NOTE: a reference too long for its column (or holding a NUL) is stored fitted to it, so
  // it is looked for in that form.
  const column = manager.connection
    .getMetadata(WebhookEventEntity)
    .findColumnWithPropertyName('paymentRef')!;
  const asked = new Map<string, string[]>();
  for (const ref of new Set(paymentRefs)) {
    const stored = fittedTo(column, ref) as string;
    asked.set(stored, [...(asked.get(stored) ?? []), ref]);
  }
  const rows = await manager
    .createQueryBuilder(WebhookEventEntity, 'e')
    .select('e.endpoint', 'endpoint')
    .addSelect('e.payment_ref', 'paymentRef')
    .addSelect('e.received_at', 'receivedAt')
    .addSelect('COUNT(*)', 'count')
    .where('e.payment_ref IN (:...refs)', { refs: [...asked.keys()] })
    .groupBy('e.endpoint')
    .addGroupBy('e.payment_ref')
    .addGroupBy('e.received_at')
    .getRawMany<{ endpoint: string; paymentRef: string; receivedAt: unknown; count: unknown }>();
  return rows.flatMap((row) =>
    (asked.get(row.paymentRef) ?? []).map((paymentRef) => ({
      endpoint: row.endpoint,
      paymentRef,
      receivedAt: dateOf(row.receivedAt),
      count: Number(row.count),
    })),
  );
}
