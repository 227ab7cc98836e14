import { EntityManager, SelectQueryBuilder } from 'typeorm';
import { timeOrderedId } from '../../core/time-ordered-id';
import { WebhookEventEntity } from '../schema/entities/webhook-event.entity';
import { WebhookReplayEntity } from '../schema/entities/webhook-replay.entity';
import { writeHistory } from '../history/event-history';
import type {
  BackfillJob,
  BackfillJobs,
  BackfillScope,
  BackfillState,
  BackfillStep,
  NewBackfillJob,
} from '../ports/backfill-jobs.port';
import type { InboxEvent } from '../ports/inbox-event';
import { filteredEvents } from '../queries/event-filter-query';
import { LIVE_STATUS } from '../work/work-rows';
import { HandlerLedger } from '../ledger/handler-ledger';
import { StoreConnection } from '../connections/store-connection';
import { ReplayJobQueries } from './replay-job-queries';
import { dateOf } from '../schema/stored-date';
import {
  afterCursor,
  batchError,
  cancelJob,
  claimJob,
  jobOfKind,
  jobsOfKind,
  leaseHolderOf,
  lockedReplay,
} from './replay-jobs';

/** The statuses of the events a backfill runs its handler on: their handlers have run. */
const BACKFILLED_STATUSES = ['processed', 'ignored'];

/** What a backfill keeps in its row's `filter`: its scope (dates as ISO text) and dry run. */
interface BackfillTarget {
  readonly since: string;
  readonly until: string;
  readonly endpoint?: string;
  readonly tenant?: string;
  readonly types?: readonly string[];
  readonly dryRun: boolean;
}

/** A stored backfill as the port returns it. */
function backfillJobOf(row: WebhookReplayEntity): BackfillJob {
  const { since, until, dryRun, ...narrowed } = JSON.parse(row.filter) as BackfillTarget;
  return {
    id: row.id,
    handler: row.handler ?? '',
    scope: { since: new Date(since), until: new Date(until), ...narrowed },
    dryRun,
    status: row.status === 'active' ? 'running' : (row.status as BackfillJob['status']),
    total: Number(row.total),
    passed: Number(row.replayed),
    ran: Number(row.ran),
    failed: Number(row.failed),
    ratePerSecond: row.ratePerSecond === null ? null : Number(row.ratePerSecond),
    actor: row.actor,
    createdAt: dateOf(row.createdAt)!,
    updatedAt: dateOf(row.updatedAt)!,
    finishedAt: dateOf(row.finishedAt),
    lockedBy: leaseHolderOf(row),
    error: row.error,
  };
}

/** Where a backfill `holder` means to run stands: `running` when it is still this holder's. */
function stateOf(job: WebhookReplayEntity | null, holder: string): BackfillState {
  if (!job || job.status === 'canceled') {
    return 'canceled';
  }
  if (job.status !== 'active') {
    return job.status === 'failed' ? 'failed' : 'done';
  }
  return job.lockedBy === holder ? 'running' : 'lost';
}

/**
 * {@link BackfillJobs} on PostgreSQL or SQLite: rows of kind `backfill` in the table of the jobs
 * in the background, with the handler they run in `handler`, the events passed in `replayed`
 * and the runs in `ran` and `failed`. One under way is `active` and reads as `running`.
 */
export class BackfillJobQueries implements BackfillJobs {
  private readonly ledger: HandlerLedger;
  /** For the lease, which a backfill gives back as a replay does. */
  private readonly replays: ReplayJobQueries;

  constructor(private readonly connection: StoreConnection) {
    this.ledger = new HandlerLedger(connection);
    this.replays = new ReplayJobQueries(connection);
  }

  startBackfillJob(job: NewBackfillJob): Promise<BackfillJob> {
    return this.connection.transaction(async (manager) => {
      const now = new Date();
      const { since, until, endpoint, tenant, types } = job.scope;
      const target: BackfillTarget = {
        since: since.toISOString(),
        until: until.toISOString(),
        ...(endpoint === undefined ? {} : { endpoint }),
        ...(tenant === undefined ? {} : { tenant }),
        ...(types === undefined ? {} : { types: [...types] }),
        dryRun: job.dryRun,
      };
      const row = manager.create(WebhookReplayEntity, {
        id: timeOrderedId(now.getTime()),
        kind: 'backfill',
        handler: job.handler,
        endpoint: endpoint ?? null,
        tenant: tenant ?? null,
        filter: JSON.stringify(target),
        status: 'active',
        total: await this.candidates(manager, job.handler, job.scope).getCount(),
        replayed: 0,
        ran: 0,
        failed: 0,
        ratePerSecond: job.ratePerSecond,
        actor: job.actor?.slice(0, 128) ?? null,
        createdAt: now,
        updatedAt: now,
        finishedAt: null,
        cursorAt: null,
        cursorId: null,
        pageCursor: null,
        lockedBy: null,
        lockedUntil: null,
        error: null,
      });
      await manager.insert(WebhookReplayEntity, row);
      return backfillJobOf(row);
    });
  }

  async backfillJobs(limit: number): Promise<BackfillJob[]> {
    const rows = await this.connection.read((manager) => jobsOfKind(manager, 'backfill', limit));
    return rows.map(backfillJobOf);
  }

  async backfillJob(id: string): Promise<BackfillJob | null> {
    const row = await this.connection.read((manager) => jobOfKind(manager, id, 'backfill'));
    return row ? backfillJobOf(row) : null;
  }

  cancelBackfillJob(id: string): Promise<boolean> {
    return this.connection.transaction((manager) => cancelJob(manager, id, 'backfill'));
  }

  claimBackfillJob(
    holder: string,
    leaseMs: number,
    handlers: readonly string[],
  ): Promise<BackfillJob | null> {
    if (handlers.length === 0) {
      return Promise.resolve(null);
    }
    return this.connection.transaction(async (manager) => {
      const row = await claimJob(manager, holder, leaseMs, 'backfill', handlers);
      return row && backfillJobOf(row);
    });
  }

  nextBackfilled(id: string, holder: string, limit: number): Promise<InboxEvent[]> {
    return this.connection.read(async (manager) => {
      const row = await manager.findOneBy(WebhookReplayEntity, { id, kind: 'backfill' });
      if (!row || stateOf(row, holder) !== 'running') {
        return [];
      }
      const job = backfillJobOf(row);
      return afterCursor(this.candidates(manager, job.handler, job.scope), row)
        .limit(limit)
        .getMany();
    });
  }

  runBackfilled(
    id: string,
    holder: string,
    event: InboxEvent,
    passed: number,
    leaseMs: number,
    work: (manager: EntityManager) => Promise<string | undefined>,
  ): Promise<'ran' | 'already_done' | 'lost' | 'canceled'> {
    return this.connection.transaction(async (manager) => {
      const job = await lockedReplay(manager, id);
      const state = stateOf(job, holder);
      if (state !== 'running') {
        return state === 'lost' ? 'lost' : 'canceled';
      }
      const handler = job!.handler!;
      if (!(await this.ledger.claimRun(manager, event.id, handler, 1))) {
        return 'already_done';
      }
      const startedAt = new Date();
      const outcome = await work(manager);
      if (outcome !== undefined) {
        await this.ledger.keepOutcome(manager, event.id, handler, outcome);
      }
      const at = new Date();
      await writeHistory(this.connection, manager, [
        {
          eventId: event.id,
          kind: 'backfill',
          at: startedAt,
          finishedAt: at,
          attempt: 1,
          handlerKey: handler,
          outcome: 'ran',
          worker: holder,
          actor: job!.actor,
          detail: JSON.stringify({ backfill: id, ...(outcome === undefined ? {} : { outcome }) }),
        },
      ]);
      await manager.update(
        WebhookReplayEntity,
        { id },
        {
          ...this.moved(job!, { through: event, passed }, leaseMs, at),
          ran: Number(job!.ran) + 1,
        },
      );
      return 'ran';
    });
  }

  advanceBackfill(
    id: string,
    holder: string,
    step: BackfillStep,
    leaseMs: number,
    finished: boolean,
  ): Promise<BackfillState> {
    return this.connection.transaction(async (manager) => {
      const job = await lockedReplay(manager, id);
      const state = stateOf(job, holder);
      if (state !== 'running') {
        return state;
      }
      const failed = step.failed ?? [];
      await writeHistory(
        this.connection,
        manager,
        failed.map((failure) => ({
          eventId: failure.eventId,
          kind: 'backfill',
          at: failure.startedAt,
          finishedAt: failure.finishedAt,
          attempt: 1,
          handlerKey: job!.handler,
          outcome: 'failed',
          errorClass: failure.errorClass,
          error: failure.error,
          fingerprint: failure.fingerprint,
          worker: failure.worker,
          actor: job!.actor,
          detail: JSON.stringify({ backfill: id }),
        })),
      );
      const at = new Date();
      await manager.update(
        WebhookReplayEntity,
        { id },
        {
          ...this.moved(job!, step, leaseMs, at),
          ran: Number(job!.ran) + (step.ran ?? 0),
          failed: Number(job!.failed) + failed.length,
          ...(finished
            ? { status: 'done', finishedAt: at, lockedBy: null, lockedUntil: null }
            : {}),
        },
      );
      return finished ? 'done' : 'running';
    });
  }

  async failBackfillJob(id: string, holder: string, error: string): Promise<void> {
    await this.connection.transaction((manager) => {
      const now = new Date();
      return manager.update(
        WebhookReplayEntity,
        { id, kind: 'backfill', status: 'active', lockedBy: holder },
        {
          status: 'failed',
          error: batchError(error),
          updatedAt: now,
          finishedAt: now,
          lockedBy: null,
          lockedUntil: null,
        },
      );
    });
  }

  releaseBackfillJob(id: string, holder: string, error: string | null): Promise<void> {
    return this.replays.releaseReplayJob(id, holder, error);
  }

  /** The changes that move `job`'s cursor over `step`'s events and renew its lease. */
  private moved(
    job: WebhookReplayEntity,
    step: Pick<BackfillStep, 'through' | 'passed'>,
    leaseMs: number,
    at: Date,
  ): Partial<WebhookReplayEntity> {
    return {
      replayed: Number(job.replayed) + step.passed,
      ...(step.through ? { cursorAt: step.through.receivedAt, cursorId: step.through.id } : {}),
      updatedAt: at,
      lockedUntil: new Date(at.getTime() + leaseMs),
      error: null,
    };
  }

  /**
   * The events of `scope` a backfill of `handler` runs on: processed or ignored, without a run
   * of the handler in the ledger.
   */
  private candidates(
    manager: EntityManager,
    handler: string,
    scope: BackfillScope,
  ): SelectQueryBuilder<WebhookEventEntity> {
    const { since, until, endpoint, tenant, types } = scope;
    const query = filteredEvents(
      manager.createQueryBuilder(WebhookEventEntity, 'e'),
      { since, until, endpoint, tenant },
      true,
    )
      .andWhere(`${LIVE_STATUS} IN (:...backfilled)`, { backfilled: BACKFILLED_STATUSES })
      .andWhere(
        'NOT EXISTS (SELECT 1 FROM webhook_handler_runs r ' +
          'WHERE r.event_id = e.id AND r.handler_key = :handler)',
        { handler: this.ledger.fitted('handlerKey', handler) },
      );
    if (types !== undefined && types.length > 0) {
      query.andWhere('e.type IN (:...types)', { types });
    }
    return query;
  }
}
