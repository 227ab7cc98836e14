import { EntityManager, In } from 'typeorm';
import { WebhookEventEntity } from './entities/webhook-event.entity';
import { WebhookHandlerRunEntity } from './entities/webhook-handler-run.entity';
import { WebhookWorkEntity } from './entities/webhook-work.entity';
import { WebhookHistoryEntity } from './entities/webhook-history.entity';
import { WebhookPauseEntity } from './entities/webhook-pause.entity';
import { WebhookReplayEntity } from './entities/webhook-replay.entity';
import {
  batchError,
  filterText,
  freeReplay,
  lockedReplay,
  nextReplayed,
  replayJobOf,
} from './replay-jobs';
import { timeOrderedId } from '../core/time-ordered-id';
import { filteredEvents } from './event-filter-query';
import {
  pauseKey,
  readFailureGroups,
  readHistory,
  readPauses,
  writeHistory,
} from './event-history';
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
import { paymentEventTimes, sampleInbox } from './inbox-samples';
import type {
  DeletedEvents,
  InboxQueries,
  InboxSampleRows,
  PaymentEventTime,
  PrunedPayload,
  SettledEventSelection,
  WebhookEventDetails,
  WebhookEventFilter,
  WebhookEventSummary,
  WebhookInboxStats,
} from './ports/inbox-queries.port';
import { deleteSettledBatch, prunePayloadBatch } from './retention-batches';
import { parameterList, StoreConnection } from './store-connection';
import { dateOf } from './stored-date';
import { PARKED_UNTIL, REPLAYABLE_STATUSES, WebhookEventStatus } from './webhook-event-status';
import type { WorkLease } from './ports/inbox-event';
import { LIVE_STATUS, withWork } from './work-rows';

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
      const requeued = await this.requeue(manager, ids);
      const at = new Date();
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
    return this.connection.transaction(async (manager) => {
      const now = new Date();
      const row = manager.create(WebhookReplayEntity, {
        id: timeOrderedId(now.getTime()),
        filter: filterText(job.filter),
        status: 'running',
        total: job.total,
        replayed: 0,
        ratePerSecond: job.ratePerSecond,
        actor: job.actor?.slice(0, 128) ?? null,
        createdAt: now,
        updatedAt: now,
        finishedAt: null,
        cursorAt: null,
        cursorId: null,
        lockedBy: null,
        lockedUntil: null,
        error: null,
      });
      await manager.insert(WebhookReplayEntity, row);
      return replayJobOf(row);
    });
  }

  async replayJobs(limit: number): Promise<ReplayJob[]> {
    const rows = await this.connection.read((manager) =>
      manager.find(WebhookReplayEntity, { order: { createdAt: 'DESC' }, take: limit }),
    );
    return rows.map(replayJobOf);
  }

  async replayJob(id: string): Promise<ReplayJob | null> {
    const row = await this.connection.read((manager) =>
      manager.findOneBy(WebhookReplayEntity, { id }),
    );
    return row ? replayJobOf(row) : null;
  }

  cancelReplayJob(id: string): Promise<boolean> {
    return this.connection.transaction(async (manager) => {
      const now = new Date();
      const result = await manager
        .createQueryBuilder()
        .update(WebhookReplayEntity)
        .set({
          status: 'canceled',
          finishedAt: now,
          updatedAt: now,
          lockedBy: null,
          lockedUntil: null,
        })
        .where("id = :id AND status = 'running'", { id })
        .execute();
      return (result.affected ?? 0) > 0;
    });
  }

  claimReplayJob(holder: string, leaseMs: number): Promise<ReplayJob | null> {
    return this.connection.transaction(async (manager) => {
      const now = new Date();
      const row = await freeReplay(manager, now);
      if (!row) {
        return null;
      }
      const lease = { lockedBy: holder, lockedUntil: new Date(now.getTime() + leaseMs) };
      await manager.update(WebhookReplayEntity, { id: row.id }, lease);
      return replayJobOf({ ...row, ...lease });
    });
  }

  runReplayBatch(id: string, holder: string, limit: number, leaseMs: number): Promise<ReplayBatch> {
    return this.connection.transaction(async (manager) => {
      const job = await lockedReplay(manager, id);
      if (!job || job.status !== 'running') {
        return { replayed: 0, status: job?.status === 'done' ? 'done' : 'canceled' };
      }
      if (job.lockedBy !== holder) {
        return { replayed: 0, status: 'lost' };
      }
      const next = await nextReplayed(manager, job, limit);
      const requeued =
        next.length === 0
          ? []
          : await this.requeue(
              manager,
              next.map((event) => event.id),
            );
      const at = new Date();
      await writeHistory(
        this.connection,
        manager,
        requeued.map(({ id: eventId, from }) => ({
          eventId,
          kind: 'replay',
          at,
          outcome: from,
          actor: job.actor,
          detail: JSON.stringify({ replay: job.id, ...JSON.parse(job.filter) }),
        })),
      );
      const last = next.at(-1);
      const status = next.length < limit ? 'done' : 'running';
      await manager.update(
        WebhookReplayEntity,
        { id },
        {
          replayed: Number(job.replayed) + requeued.length,
          updatedAt: at,
          error: null,
          ...(last ? { cursorAt: last.receivedAt, cursorId: last.id } : {}),
          ...(status === 'done'
            ? { status, finishedAt: at, lockedBy: null, lockedUntil: null }
            : { lockedUntil: new Date(at.getTime() + leaseMs) }),
        },
      );
      return { replayed: requeued.length, status };
    });
  }

  async releaseReplayJob(id: string, holder: string, error: string | null): Promise<void> {
    await this.connection.transaction((manager) =>
      manager.update(
        WebhookReplayEntity,
        { id, lockedBy: holder },
        {
          ...(error === null ? {} : { error: batchError(error) }),
          updatedAt: new Date(),
          lockedBy: null,
          lockedUntil: null,
        },
      ),
    );
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

  /**
   * Puts the replayable events among `ids` back as pending, due now, with a fresh attempt
   * budget: a retrying or dead event's work row is reset, a processed or ignored event gets one
   * anew, and the event's own row says `pending`.
   */
  private async requeue(
    manager: EntityManager,
    ids: readonly string[],
  ): Promise<{ id: string; from: string }[]> {
    const { connection } = this;
    const { dialect } = connection;
    const now = dialect.date(new Date());
    const reset = parameterList(dialect);
    const waiting = (await connection.rows(
      manager,
      `UPDATE webhook_work SET status = 'pending', attempts = 0, next_attempt_at = ${reset.bind(now)}, ` +
        `locked_by = NULL, locked_until = NULL WHERE event_id IN (${ids.map(reset.bind).join(', ')}) ` +
        "AND status IN ('retrying', 'dead') RETURNING event_id",
      reset.params,
      { prepare: false },
    )) as { event_id: string }[];
    const again = parameterList(dialect);
    const queued = (await connection.rows(
      manager,
      'INSERT INTO webhook_work (event_id, status, attempts, next_attempt_at) ' +
        `SELECT id, 'pending', 0, ${again.bind(now)} FROM webhook_events ` +
        `WHERE id IN (${ids.map(again.bind).join(', ')}) AND status IN ('processed', 'ignored') ` +
        'ON CONFLICT (event_id) DO NOTHING RETURNING event_id',
      again.params,
      { prepare: false },
    )) as { event_id: string }[];
    const requeued = [...waiting, ...queued].map((row) => row.event_id);
    if (requeued.length === 0) {
      return [];
    }
    // NOTE: the event's own row still says how it was last settled: what the replay undid.
    const before = await manager.find(WebhookEventEntity, {
      select: { id: true, status: true },
      where: { id: In(requeued) },
    });
    await manager
      .createQueryBuilder()
      .update(WebhookEventEntity)
      .set({ status: 'pending', attempts: 0, nextAttemptAt: new Date(), processedAt: null })
      .where({ id: In(requeued) })
      .execute();
    return before.map((event) => ({ id: event.id, from: event.status }));
  }
}
