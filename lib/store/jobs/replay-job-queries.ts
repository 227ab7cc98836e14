import { timeOrderedId } from '../../core/time-ordered-id';
import { WebhookReplayEntity } from '../schema/entities/webhook-replay.entity';
import { writeHistory } from '../history/event-history';
import type { NewReplayJob, ReplayBatch, ReplayJob, ReplayJobs } from '../ports/replay-jobs.port';
import {
  batchError,
  cancelJob,
  claimJob,
  jobOfKind,
  jobsOfKind,
  filterText,
  lockedReplay,
  nextReplayed,
  replayJobOf,
} from './replay-jobs';
import { requeueEvents } from '../work/requeue';
import { StoreConnection } from '../connections/store-connection';

/** {@link ReplayJobs} on PostgreSQL or SQLite through the store's connection. */
export class ReplayJobQueries implements ReplayJobs {
  constructor(private readonly connection: StoreConnection) {}

  startReplayJob(job: NewReplayJob): Promise<ReplayJob> {
    return this.connection.transaction(async (manager) => {
      const now = new Date();
      const row = manager.create(WebhookReplayEntity, {
        id: timeOrderedId(now.getTime()),
        filter: filterText(job.filter),
        status: 'running',
        kind: 'replay',
        pageCursor: null,
        endpoint: null,
        tenant: null,
        handler: null,
        ran: 0,
        failed: 0,
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
    const rows = await this.connection.read((manager) => jobsOfKind(manager, 'replay', limit));
    return rows.map(replayJobOf);
  }

  async replayJob(id: string): Promise<ReplayJob | null> {
    const row = await this.connection.read((manager) => jobOfKind(manager, id, 'replay'));
    return row ? replayJobOf(row) : null;
  }

  cancelReplayJob(id: string): Promise<boolean> {
    return this.connection.transaction((manager) => cancelJob(manager, id, 'replay'));
  }

  claimReplayJob(holder: string, leaseMs: number): Promise<ReplayJob | null> {
    return this.connection.transaction(async (manager) => {
      const row = await claimJob(manager, holder, leaseMs, 'replay');
      return row && replayJobOf(row);
    });
  }

  runReplayBatch(
    id: string,
    holder: string,
    limit: number,
    leaseMs: number,
    at = new Date(),
  ): Promise<ReplayBatch> {
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
          : await requeueEvents(
              this.connection,
              manager,
              next.map((event) => event.id),
            );
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
}
