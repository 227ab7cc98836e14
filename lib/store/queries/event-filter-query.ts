import { Brackets, SelectQueryBuilder } from 'typeorm';
import { WebhookEventEntity } from '../schema/entities/webhook-event.entity';
import { WebhookWorkEntity } from '../schema/entities/webhook-work.entity';
import { LIVE_STATUS } from '../work/work-rows';
import { containsPattern, currentFailure } from '../history/event-history';
import { fittedTo } from '../schema/fitted-value';
import type { WebhookEventFilter } from '../ports/inbox-queries.port';

/**
 * `qb` (events as `e`) narrowed to the events `filter` matches. With `live`, or when the
 * filter names statuses, each event's work row is joined as `w`, and `LIVE_STATUS` is its
 * status as it stands.
 */
export function filteredEvents(
  qb: SelectQueryBuilder<WebhookEventEntity>,
  filter: WebhookEventFilter,
  live = false,
): SelectQueryBuilder<WebhookEventEntity> {
  const failure = filter.handler ?? filter.error ?? filter.fingerprint;
  if (live || filter.status !== undefined || failure !== undefined) {
    qb.leftJoin(WebhookWorkEntity, 'w', 'w.event_id = e.id');
  }
  // NOTE: a value too long for its column (or holding a NUL) is stored fitted to it; the
  // filter is fitted the same way, so the full value finds its event.
  const stored = (
    property: 'tenant' | 'eventId' | 'type' | 'paymentRef' | 'merchantRef',
    value: string,
  ) => fittedTo(qb.expressionMap.mainAlias!.metadata.findColumnWithPropertyName(property)!, value);
  return qb.where(
    new Brackets((where) => {
      where.where('1 = 1');
      if (filter.endpoint !== undefined) {
        where.andWhere('e.endpoint = :endpoint', { endpoint: filter.endpoint });
      }
      if (filter.tenant !== undefined) {
        where.andWhere('e.tenant = :tenant', { tenant: stored('tenant', filter.tenant) });
      }
      if (filter.status !== undefined) {
        const statuses = typeof filter.status === 'string' ? [filter.status] : [...filter.status];
        where.andWhere(`${LIVE_STATUS} IN (:...statuses)`, { statuses });
      }
      if (filter.eventId !== undefined) {
        where.andWhere('e.event_id = :eventId', { eventId: stored('eventId', filter.eventId) });
      }
      if (filter.type !== undefined) {
        where.andWhere('e.type = :type', { type: stored('type', filter.type) });
      }
      if (filter.paymentRef !== undefined) {
        where.andWhere('e.payment_ref = :paymentRef', {
          paymentRef: stored('paymentRef', filter.paymentRef),
        });
      }
      if (filter.merchantRef !== undefined) {
        where.andWhere('e.merchant_ref = :merchantRef', {
          merchantRef: stored('merchantRef', filter.merchantRef),
        });
      }
      if (filter.since !== undefined) {
        where.andWhere('e.received_at >= :since', { since: filter.since });
      }
      if (filter.until !== undefined) {
        where.andWhere('e.received_at < :until', { until: filter.until });
      }
      if (failure !== undefined) {
        where.andWhere(failedAs(filter), failureParameters(filter));
      }
    }),
  );
}

/** The condition that the event's current failure (see `currentFailure()`) matches `filter`. */
function failedAs(filter: WebhookEventFilter): string {
  const conditions = [currentFailure('h', 'w')];
  if (filter.handler !== undefined) {
    conditions.push('h.handler_key = :failedHandler');
  }
  if (filter.fingerprint !== undefined) {
    conditions.push('h.fingerprint = :failedFingerprint');
  }
  if (filter.error !== undefined) {
    conditions.push("LOWER(h.error) LIKE :failedError ESCAPE '\\'");
  }
  return (
    "w.status IN ('dead', 'retrying') AND EXISTS (SELECT 1 FROM webhook_history h " +
    `WHERE h.event_id = e.id AND ${conditions.join(' AND ')})`
  );
}

function failureParameters(filter: WebhookEventFilter): Record<string, string> {
  return {
    ...(filter.handler === undefined ? {} : { failedHandler: filter.handler }),
    ...(filter.fingerprint === undefined ? {} : { failedFingerprint: filter.fingerprint }),
    ...(filter.error === undefined ? {} : { failedError: containsPattern(filter.error) }),
  };
}
