import type { InboxQueries } from './ports/inbox-queries.port';
import type { StoreConnection } from './connections/store-connection';
import { TypeOrmPauseQueries } from './history/typeorm-pause-queries';
import { RecoveryJobQueries } from './jobs/recovery-job-queries';
import { BackfillJobQueries } from './jobs/backfill-job-queries';
import { ReplayJobQueries } from './jobs/replay-job-queries';
import { TypeOrmRetentionQueries } from './queries/retention-batches';
import { TypeOrmEventQueries } from './queries/typeorm-event-queries';
import { TypeOrmOperatorActions } from './queries/typeorm-operator-actions';

/**
 * {@link InboxQueries} on PostgreSQL or SQLite: one part per port, each in its room, all on the
 * store's connection.
 */
export function typeOrmInboxQueries(connection: StoreConnection): InboxQueries {
  const events = new TypeOrmEventQueries(connection);
  const actions = new TypeOrmOperatorActions(connection);
  const pauses = new TypeOrmPauseQueries(connection);
  const jobs = new ReplayJobQueries(connection);
  const retention = new TypeOrmRetentionQueries(connection);
  return {
    list: (filter, limit) => events.list(filter, limit),
    count: (filter) => events.count(filter),
    find: (id) => events.find(id),
    failureGroups: (filter, limit) => events.failureGroups(filter, limit),
    stats: () => events.stats(),
    sample: (statuses, since) => events.sample(statuses, since),
    paymentEventTimes: (paymentRefs) => events.paymentEventTimes(paymentRefs),
    providerKinds: (endpoint) => events.providerKinds(endpoint),
    recordedNames: () => events.recordedNames(),
    replayable: (filter, limit) => actions.replayable(filter, limit),
    replay: (ids, action) => actions.replay(ids, action),
    settleByHand: (id, status, reason, actor) => actions.settleByHand(id, status, reason, actor),
    purge: (selection, limit) => actions.purge(selection, limit),
    pauses: () => pauses.pauses(),
    pause: (scope, pausedBy, reason) => pauses.pause(scope, pausedBy, reason),
    resume: (scope) => pauses.resume(scope),
    startReplayJob: (job) => jobs.startReplayJob(job),
    replayJobs: (limit) => jobs.replayJobs(limit),
    replayJob: (id) => jobs.replayJob(id),
    cancelReplayJob: (id) => jobs.cancelReplayJob(id),
    claimReplayJob: (holder, leaseMs) => jobs.claimReplayJob(holder, leaseMs),
    runReplayBatch: (id, holder, limit, leaseMs, at) =>
      jobs.runReplayBatch(id, holder, limit, leaseMs, at),
    releaseReplayJob: (id, holder, error) => jobs.releaseReplayJob(id, holder, error),
    deleteSettled: (before, limit) => retention.deleteSettled(before, limit),
    prunePayloads: (before, limit, after) => retention.prunePayloads(before, limit, after),
    recoveries: new RecoveryJobQueries(connection),
    backfills: new BackfillJobQueries(connection),
  };
}
