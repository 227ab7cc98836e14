import { WebhookEventEntity } from '../schema/entities/webhook-event.entity';
import { WebhookHandlerRunEntity } from '../schema/entities/webhook-handler-run.entity';
import { WebhookWorkEntity } from '../schema/entities/webhook-work.entity';
import { readFailureGroups, readHistory } from '../history/event-history';
import type { FailureGroup, FailureGroupFilter } from '../ports/event-history';
import type {
  EventQueries,
  InboxSampleRows,
  PaymentEventTime,
  RecordedNames,
  WebhookEventDetails,
  WebhookEventSummary,
  WebhookInboxStats,
} from '../ports/event-queries.port';
import type { WebhookEventFilter } from '../ports/event-filter';
import type { WorkLease } from '../ports/inbox-event';
import type { WebhookEventStatus } from '../ports/webhook-event-status';
import type { StoreConnection } from '../connections/store-connection';
import { dateOf } from '../schema/stored-date';
import { LIVE_STATUS, withWork } from '../work/work-rows';
import { filteredEvents } from './event-filter-query';
import { paymentEventTimes, sampleInbox } from './inbox-samples';
import { recordedNames } from './recorded-names';

/** The columns a list reads: every one but the payload. */
const SUMMARY_COLUMNS: readonly string[] = Object.keys({
  id: true,
  endpoint: true,
  tenant: true,
  provider: true,
  eventId: true,
  type: true,
  nativeType: true,
  paymentRef: true,
  merchantRef: true,
  amount: true,
  currency: true,
  paymentStatus: true,
  occurredAt: true,
  receivedAt: true,
  bodySha256: true,
  status: true,
  attempts: true,
  nextAttemptAt: true,
  lastError: true,
  processedAt: true,
  deliveryCount: true,
  outcome: true,
  providerStatus: true,
} satisfies Record<Exclude<keyof WebhookEventSummary, keyof WorkLease>, true>).map(
  (property) => `e.${property}`,
);

/** {@link EventQueries} on PostgreSQL or SQLite through the store's connection. */
export class TypeOrmEventQueries implements EventQueries {
  constructor(private readonly connection: StoreConnection) {}

  list(filter: WebhookEventFilter, limit: number): Promise<WebhookEventSummary[]> {
    return this.connection.transaction(async (manager) =>
      withWork(
        manager,
        await filteredEvents(manager.createQueryBuilder(WebhookEventEntity, 'e'), filter)
          .select([...SUMMARY_COLUMNS])
          .orderBy('e.received_at', 'DESC')
          .addOrderBy('e.id', 'DESC')
          .limit(limit)
          .getMany(),
      ),
    );
  }

  count(filter: WebhookEventFilter): Promise<number> {
    return this.connection.transaction((manager) =>
      filteredEvents(manager.createQueryBuilder(WebhookEventEntity, 'e'), filter).getCount(),
    );
  }

  find(id: string): Promise<WebhookEventDetails | null> {
    return this.connection.transaction(async (manager) => {
      const found = await manager.findOneBy(WebhookEventEntity, { id });
      if (!found) {
        return null;
      }
      const [event] = await withWork(manager, [found]);
      const handlerRuns = await manager.find(WebhookHandlerRunEntity, {
        where: { eventId: id },
        order: { finishedAt: 'ASC' },
      });
      return { event, handlerRuns, history: await readHistory(manager, id) };
    });
  }

  failureGroups(filter: FailureGroupFilter, limit: number): Promise<FailureGroup[]> {
    return this.connection.transaction((manager) =>
      readFailureGroups(this.connection, manager, filter, limit),
    );
  }

  stats(): Promise<WebhookInboxStats> {
    return this.connection.transaction(async (manager) => {
      const rows = await manager
        .createQueryBuilder(WebhookEventEntity, 'e')
        .leftJoin(WebhookWorkEntity, 'w', 'w.event_id = e.id')
        .select('e.endpoint', 'endpoint')
        .addSelect(LIVE_STATUS, 'status')
        .addSelect('COUNT(*)', 'count')
        .groupBy('e.endpoint')
        .addGroupBy(LIVE_STATUS)
        .orderBy('e.endpoint')
        .addOrderBy(LIVE_STATUS)
        .getRawMany<{ endpoint: string; status: WebhookEventStatus; count: string | number }>();
      const [oldest] = await manager
        .createQueryBuilder(WebhookWorkEntity, 'w')
        .innerJoin(WebhookEventEntity, 'e', 'e.id = w.event_id')
        .select('MIN(e.received_at)', 'at')
        .where("w.status IN ('pending', 'retrying')")
        .getRawMany<{ at: unknown }>();
      return {
        counts: rows.map((row) => ({ ...row, count: Number(row.count) })),
        oldestPendingAt: dateOf(oldest?.at) ?? null,
      };
    });
  }

  sample(statuses: readonly WebhookEventStatus[], since: Date | null): Promise<InboxSampleRows> {
    return this.connection.transaction((manager) => sampleInbox(manager, statuses, since));
  }

  paymentEventTimes(paymentRefs: readonly string[]): Promise<PaymentEventTime[]> {
    // NOTE: a single SELECT needs no BEGIN and COMMIT around it, which would triple the round
    // trips of a query that runs every few milliseconds under load.
    return this.connection.read((manager) => paymentEventTimes(manager, paymentRefs));
  }

  async providerKinds(endpoint?: string): Promise<string[]> {
    const rows = await this.connection.transaction((manager) => {
      const query = manager
        .createQueryBuilder(WebhookEventEntity, 'e')
        .select('DISTINCT e.provider', 'provider');
      if (endpoint !== undefined) {
        query.where('e.endpoint = :endpoint', { endpoint });
      }
      return query.getRawMany<{ provider: string }>();
    });
    return rows.map((row) => row.provider);
  }

  recordedNames(): Promise<RecordedNames> {
    return this.connection.transaction((manager) => recordedNames(manager));
  }
}
