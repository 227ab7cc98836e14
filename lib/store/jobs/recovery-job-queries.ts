import { createHash } from 'node:crypto';
import { EntityManager, In } from 'typeorm';
import { timeOrderedId } from '../../core/time-ordered-id';
import { WebhookEventEntity } from '../schema/entities/webhook-event.entity';
import { WebhookReplayEntity } from '../schema/entities/webhook-replay.entity';
import { writeHistory } from '../history/event-history';
import type {
  NewRecoveryJob,
  RecoveredPage,
  RecoveryJob,
  RecoveryJobs,
} from '../ports/recovery-jobs.port';
import {
  batchError,
  cancelJob,
  claimJob,
  jobOfKind,
  jobsOfKind,
  leaseHolderOf,
  lockedReplay,
} from './replay-jobs';
import { ReplayJobQueries } from './replay-job-queries';
import { StoreConnection } from '../connections/store-connection';
import { dateOf } from '../schema/stored-date';

/** What a recovery keeps in its row's `filter`: the endpoint, tenant, window and dry run. */
interface RecoveryTarget {
  readonly endpoint: string;
  readonly tenant: string | null;
  readonly since: string;
  readonly until: string;
  readonly dryRun: boolean;
}

/** How many of an endpoint's latest recoveries are looked at for where the next one starts. */
const RECENT_RECOVERIES = 20;

/**
 * The id of the scheduled recovery of `job`'s endpoint and tenant in `slot`: the same on every
 * instance, so the instances that start it together store it once.
 */
function slotId(job: NewRecoveryJob, slot: string): string {
  const hex = createHash('sha256')
    .update(`recover\u0000${job.endpoint}\u0000${job.tenant ?? ''}\u0000${slot}`)
    .digest('hex');
  // NOTE: shaped as a UUID (version 8, custom), as every job id is one.
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** Most event ids asked about in one statement. */
const IDS_PER_QUERY = 500;

/** A stored recovery as the port returns it. */
function recoveryJobOf(row: WebhookReplayEntity): RecoveryJob {
  const target = JSON.parse(row.filter) as RecoveryTarget;
  return {
    id: row.id,
    endpoint: target.endpoint,
    tenant: target.tenant,
    since: new Date(target.since),
    until: new Date(target.until),
    dryRun: target.dryRun,
    status: row.status === 'active' ? 'running' : (row.status as RecoveryJob['status']),
    found: Number(row.total),
    stored: Number(row.replayed),
    ratePerSecond: row.ratePerSecond === null ? null : Number(row.ratePerSecond),
    actor: row.actor,
    createdAt: dateOf(row.createdAt)!,
    updatedAt: dateOf(row.updatedAt)!,
    finishedAt: dateOf(row.finishedAt),
    lockedBy: leaseHolderOf(row),
    error: row.error,
    cursor: row.pageCursor,
  };
}

/**
 * {@link RecoveryJobs} on PostgreSQL or SQLite: rows of kind `recover` in the table of the jobs
 * in the background, whose `total` counts the events read and `replayed` those stored. One
 * under way is `active` (see `AddRecoveryJobs1765000000000`) and reads as `running`.
 */
export class RecoveryJobQueries implements RecoveryJobs {
  private readonly jobs: ReplayJobQueries;

  constructor(private readonly connection: StoreConnection) {
    this.jobs = new ReplayJobQueries(connection);
  }

  startRecoveryJob(job: NewRecoveryJob): Promise<RecoveryJob> {
    return this.connection.transaction(async (manager) => {
      const row = this.newRow(manager, job, timeOrderedId(Date.now()));
      await manager.insert(WebhookReplayEntity, row);
      return recoveryJobOf(row);
    });
  }

  startScheduledRecoveryJob(job: NewRecoveryJob, slot: string): Promise<RecoveryJob | null> {
    return this.connection.transaction(async (manager) => {
      const row = this.newRow(manager, job, slotId(job, slot));
      const [sql, parameters] = manager
        .createQueryBuilder()
        .insert()
        .into(WebhookReplayEntity)
        .values(row)
        .orIgnore()
        .getQueryAndParameters();
      // NOTE: the structured result counts the rows written, on either database.
      const { affected } = await manager.queryRunner!.query(sql, parameters, true);
      const stored = (affected ?? 0) > 0;
      return stored ? recoveryJobOf(row) : null;
    });
  }

  async recoveredUntil(endpoint: string, tenant: string | null): Promise<Date | null> {
    const rows = await this.connection.read((manager) =>
      manager.find(WebhookReplayEntity, {
        where: { kind: 'recover', endpoint, tenant: tenant ?? '', status: 'done' },
        order: { createdAt: 'DESC' },
        take: RECENT_RECOVERIES,
      }),
    );
    const ends = rows
      .map(recoveryJobOf)
      .filter((job) => !job.dryRun)
      .map((job) => job.until.getTime());
    return ends.length === 0 ? null : new Date(Math.max(...ends));
  }

  async lastReceivedAt(endpoint: string, tenant: string | null): Promise<Date | null> {
    const row = await this.connection.read((manager) =>
      manager.findOne(WebhookEventEntity, {
        select: { receivedAt: true },
        where: { endpoint, tenant: tenant ?? '' },
        order: { receivedAt: 'DESC' },
      }),
    );
    return row ? dateOf(row.receivedAt) : null;
  }

  async tenantsWithEvents(endpoint: string): Promise<string[]> {
    const rows = await this.connection.read((manager) =>
      manager
        .createQueryBuilder(WebhookEventEntity, 'e')
        .select('DISTINCT e.tenant', 'tenant')
        .where('e.endpoint = :endpoint', { endpoint })
        .andWhere("e.tenant <> ''")
        .orderBy('e.tenant', 'ASC')
        .getRawMany<{ tenant: string }>(),
    );
    return rows.map((row) => row.tenant);
  }

  /** The row of a new recovery, `active`, due to be taken by any instance. */
  private newRow(manager: EntityManager, job: NewRecoveryJob, id: string): WebhookReplayEntity {
    const now = new Date();
    const target: RecoveryTarget = {
      endpoint: job.endpoint,
      tenant: job.tenant,
      since: job.since.toISOString(),
      until: job.until.toISOString(),
      dryRun: job.dryRun,
    };
    return manager.create(WebhookReplayEntity, {
      id,
      kind: 'recover',
      endpoint: job.endpoint,
      tenant: job.tenant ?? '',
      filter: JSON.stringify(target),
      status: 'active',
      total: 0,
      replayed: 0,
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
  }

  async recoveryJobs(limit: number): Promise<RecoveryJob[]> {
    const rows = await this.connection.read((manager) => jobsOfKind(manager, 'recover', limit));
    return rows.map(recoveryJobOf);
  }

  async recoveryJob(id: string): Promise<RecoveryJob | null> {
    const row = await this.connection.read((manager) => jobOfKind(manager, id, 'recover'));
    return row ? recoveryJobOf(row) : null;
  }

  cancelRecoveryJob(id: string): Promise<boolean> {
    return this.connection.transaction((manager) => cancelJob(manager, id, 'recover'));
  }

  claimRecoveryJob(holder: string, leaseMs: number): Promise<RecoveryJob | null> {
    return this.connection.transaction(async (manager) => {
      const row = await claimJob(manager, holder, leaseMs, 'recover');
      return row && recoveryJobOf(row);
    });
  }

  recordRecoveredPage(
    id: string,
    holder: string,
    page: RecoveredPage,
    leaseMs: number,
  ): Promise<'running' | 'done' | 'canceled' | 'lost'> {
    return this.connection.transaction(async (manager) => {
      const job = await lockedReplay(manager, id);
      if (!job || job.status !== 'active') {
        return 'canceled';
      }
      if (job.lockedBy !== holder) {
        return 'lost';
      }
      const at = new Date();
      await writeHistory(
        this.connection,
        manager,
        page.storedIds.map((eventId) => ({
          eventId,
          kind: 'recover',
          at,
          outcome: 'stored',
          actor: job.actor,
          detail: JSON.stringify({ recovery: job.id, source: page.source }),
        })),
      );
      const done = page.next === null;
      await manager.update(
        WebhookReplayEntity,
        { id },
        {
          total: Number(job.total) + page.found,
          replayed: Number(job.replayed) + page.storedIds.length + page.missing,
          pageCursor: page.next ?? job.pageCursor,
          updatedAt: at,
          error: null,
          ...(done
            ? { status: 'done', finishedAt: at, lockedBy: null, lockedUntil: null }
            : { lockedUntil: new Date(at.getTime() + leaseMs) }),
        },
      );
      return done ? 'done' : 'running';
    });
  }

  async failRecoveryJob(id: string, holder: string, error: string): Promise<void> {
    await this.connection.transaction(async (manager) => {
      const now = new Date();
      await manager.update(
        WebhookReplayEntity,
        { id, lockedBy: holder, status: 'active' },
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

  releaseRecoveryJob(id: string, holder: string, error: string | null): Promise<void> {
    return this.jobs.releaseReplayJob(id, holder, error);
  }

  async storedEventIds(
    endpoint: string,
    tenant: string,
    eventIds: readonly string[],
  ): Promise<Set<string>> {
    const stored = new Set<string>();
    for (let start = 0; start < eventIds.length; start += IDS_PER_QUERY) {
      const ids = eventIds.slice(start, start + IDS_PER_QUERY);
      const rows = await this.connection.read((manager: EntityManager) =>
        manager.find(WebhookEventEntity, {
          select: { eventId: true },
          where: { endpoint, tenant, eventId: In(ids) },
        }),
      );
      rows.forEach((row) => stored.add(row.eventId));
    }
    return stored;
  }
}
