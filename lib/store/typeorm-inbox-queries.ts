import { In } from 'typeorm';
import { WebhookEventEntity } from './schema/entities/webhook-event.entity';
import { WebhookHandlerRunEntity } from './schema/entities/webhook-handler-run.entity';
import { WebhookWorkEntity } from './schema/entities/webhook-work.entity';
import { WebhookHistoryEntity } from './schema/entities/webhook-history.entity';
import { WebhookPauseEntity } from './schema/entities/webhook-pause.entity';

import { ReplayJobQueries } from './jobs/replay-job-queries';
import { requeueEvents } from './work/requeue';
import { filteredEvents } from './queries/event-filter-query';
import {
  pauseKey,
  readFailureGroups,
  readHistory,
  readPauses,
  writeHistory,
} from './history/event-history';
import type {
  DispatchPause,
  DispatchPauseScope,
  FailureGroup,
  FailureGroupFilter,
  NewReplayJob,
  OperatorAction,
  ReplayBatch,
  ReplayJob,
} from './ports/event-history';
import { paymentEventTimes, sampleInbox } from './queries/inbox-samples';
import type {
  DeletedEvents,
  InboxQueries,
  InboxSampleRows,
  PaymentEventTime,
  PrunedPayload,
  RecordedNames,
  SettledEventSelection,
  WebhookEventDetails,
  WebhookEventFilter,
  WebhookEventSummary,
  WebhookInboxStats,
} from './ports/inbox-queries.port';
import { recordedNames } from './queries/recorded-names';
import { deleteSettledBatch, prunePayloadBatch } from './queries/retention-batches';
import { parameterList, StoreConnection } from './connections/store-connection';
import { dateOf } from './schema/stored-date';
import {
  PARKED_UNTIL,
  REPLAYABLE_STATUSES,
  WebhookEventStatus,
} from './ports/webhook-event-status';
import type { WorkLease } from './ports/inbox-event';
import { LIVE_STATUS, withWork } from './work/work-rows';

/**
 * Statuses an event can be put back from: `processing` belongs to a worker, `pending` is
 * already waiting.
 */

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

/** Longest last error kept on an event. */
const MAX_ERROR_LENGTH = 2000;

/** {@link InboxQueries} on PostgreSQL or SQLite through the store's connection. */
export class TypeOrmInboxQueries implements InboxQueries {
  private readonly jobs: ReplayJobQueries;

  constructor(private readonly connection: StoreConnection) {
    this.jobs = new ReplayJobQueries(connection);
  }

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

  replayable(filter: WebhookEventFilter, limit: number): Promise<string[]> {
    return this.connection.transaction(async (manager) => {
      const rows = await filteredEvents(
        manager.createQueryBuilder(WebhookEventEntity, 'e'),
        filter,
        true,
      )
        .andWhere(`${LIVE_STATUS} IN (:...replayable)`, { replayable: REPLAYABLE_STATUSES })
        .select('e.id', 'id')
        .orderBy('e.received_at', 'ASC')
        .limit(limit)
        .getRawMany<{ id: string }>();
      return rows.map((row) => row.id);
    });
  }

  async replay(ids: readonly string[], action: OperatorAction = {}): Promise<number> {
    if (ids.length === 0) {
      return 0;
    }
    return this.connection.transaction(async (manager) => {
      const requeued = await requeueEvents(this.connection, manager, ids);
      const at = action.at ?? new Date();
      await writeHistory(
        this.connection,
        manager,
        requeued.map(({ id, from }) => ({
          eventId: id,
          kind: 'replay',
          at,
          outcome: from,
          actor: action.actor,
          detail: action.detail,
        })),
      );
      return requeued.length;
    });
  }

  async settleByHand(
    id: string,
    status: 'dead' | 'ignored',
    reason: string,
    actor: string | null = null,
  ): Promise<boolean> {
    const { connection } = this;
    return connection.transaction(async (manager) => {
      const { params, bind } = parameterList(connection.dialect);
      const event = bind(id);
      // NOTE: a running event belongs to its worker: its work row is left as it is, and the
      // event's own row is then not settled either.
      const work =
        status === 'dead'
          ? 'INSERT INTO webhook_work (event_id, status, attempts) ' +
            `SELECT id, 'dead', attempts FROM webhook_events WHERE id = ${event} ` +
            "ON CONFLICT (event_id) DO UPDATE SET status = 'dead', next_attempt_at = NULL " +
            "WHERE webhook_work.status <> 'processing'"
          : `DELETE FROM webhook_work WHERE event_id = ${event} AND status <> 'processing'`;
      await connection.rows(manager, work, params, { prepare: false });
      const running = await manager.countBy(WebhookWorkEntity, {
        eventId: id,
        status: 'processing',
      });
      if (running > 0) {
        return false;
      }
      const result = await manager
        .createQueryBuilder()
        .update(WebhookEventEntity)
        .set({
          status,
          lastError: `Settled by hand: ${reason}`.slice(0, MAX_ERROR_LENGTH),
          nextAttemptAt: null,
          processedAt: status === 'ignored' ? new Date() : null,
        })
        .where('id = :id', { id })
        .execute();
      const settled = (result.affected ?? 0) > 0;
      if (settled) {
        await writeHistory(connection, manager, [
          { eventId: id, kind: 'settle', at: new Date(), outcome: status, actor, detail: reason },
        ]);
      }
      return settled;
    });
  }

  failureGroups(filter: FailureGroupFilter, limit: number): Promise<FailureGroup[]> {
    return this.connection.transaction((manager) =>
      readFailureGroups(this.connection, manager, filter, limit),
    );
  }

  pauses(): Promise<DispatchPause[]> {
    return this.connection.read(readPauses);
  }

  pause(
    scope: DispatchPauseScope,
    pausedBy: string | null,
    reason: string | null,
  ): Promise<boolean> {
    const { connection } = this;
    return connection.transaction(async (manager) => {
      const { params, bind } = parameterList(connection.dialect);
      const key = pauseKey(scope);
      const rows = await connection.rows(
        manager,
        'INSERT INTO webhook_pauses (endpoint, handler_key, paused_at, paused_by, reason) ' +
          `VALUES (${[key.endpoint, key.handlerKey, connection.dialect.date(new Date()), pausedBy?.slice(0, 128) ?? null, reason?.slice(0, 500) ?? null].map(bind).join(', ')}) ` +
          'ON CONFLICT (endpoint, handler_key) DO NOTHING RETURNING endpoint',
        params,
        { prepare: false },
      );
      return rows.length > 0;
    });
  }

  resume(scope: DispatchPauseScope): Promise<number | null> {
    const { connection } = this;
    return connection.transaction(async (manager) => {
      const lifted = await manager.delete(WebhookPauseEntity, pauseKey(scope));
      if ((lifted.affected ?? 0) === 0) {
        return null;
      }
      // NOTE: every parked event falls due: one another pause still holds is parked again
      // when claimed, which costs it a claim and no attempt.
      const { params, bind } = parameterList(connection.dialect);
      const now = connection.dialect.date(new Date());
      const woken = (await connection.rows(
        manager,
        `UPDATE webhook_work SET next_attempt_at = ${bind(now)} ` +
          `WHERE status IN ('pending', 'retrying') AND next_attempt_at >= ${bind(connection.dialect.date(PARKED_UNTIL))} ` +
          'RETURNING event_id',
        params,
        { prepare: false },
      )) as { event_id: string }[];
      if (woken.length > 0) {
        await manager
          .createQueryBuilder()
          .update(WebhookEventEntity)
          .set({ nextAttemptAt: new Date() })
          .where({ id: In(woken.map((row) => row.event_id)) })
          .execute();
      }
      return woken.length;
    });
  }

  purge(selection: SettledEventSelection, limit: number): Promise<number> {
    return this.connection.transaction(async (manager) => {
      const rows = await filteredEvents(manager.createQueryBuilder(WebhookEventEntity, 'e'), {
        status: selection.statuses,
        until: selection.olderThan,
        endpoint: selection.endpoint,
      })
        .select('e.id', 'id')
        .limit(limit)
        .getRawMany<{ id: string }>();
      const ids = rows.map((row) => row.id);
      if (ids.length > 0) {
        await manager.delete(WebhookHandlerRunEntity, { eventId: In(ids) });
        await manager.delete(WebhookHistoryEntity, { eventId: In(ids) });
        await manager.delete(WebhookWorkEntity, { eventId: In(ids) });
        await manager.delete(WebhookEventEntity, { id: In(ids) });
      }
      return ids.length;
    });
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

  startReplayJob(job: NewReplayJob): Promise<ReplayJob> {
    return this.jobs.start(job);
  }

  replayJobs(limit: number): Promise<ReplayJob[]> {
    return this.jobs.list(limit);
  }

  replayJob(id: string): Promise<ReplayJob | null> {
    return this.jobs.find(id);
  }

  cancelReplayJob(id: string): Promise<boolean> {
    return this.jobs.cancel(id);
  }

  claimReplayJob(holder: string, leaseMs: number): Promise<ReplayJob | null> {
    return this.jobs.claim(holder, leaseMs);
  }

  runReplayBatch(
    id: string,
    holder: string,
    limit: number,
    leaseMs: number,
    at?: Date,
  ): Promise<ReplayBatch> {
    return this.jobs.runBatch(id, holder, limit, leaseMs, at);
  }

  releaseReplayJob(id: string, holder: string, error: string | null): Promise<void> {
    return this.jobs.release(id, holder, error);
  }

  deleteSettled(before: Date, limit: number): Promise<DeletedEvents> {
    return this.connection.transaction((manager) => deleteSettledBatch(manager, before, limit));
  }

  prunePayloads(before: Date, limit: number, after?: PrunedPayload): Promise<PrunedPayload[]> {
    return this.connection.transaction((manager) =>
      prunePayloadBatch(manager, before, limit, after),
    );
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
