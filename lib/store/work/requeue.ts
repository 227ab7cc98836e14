import { EntityManager, In } from 'typeorm';
import { WebhookEventEntity } from '../schema/entities/webhook-event.entity';
import { parameterList, StoreConnection } from '../connections/store-connection';

/**
 * Puts the replayable events among `ids` back as pending, due now, with a fresh attempt
 * budget: a retrying or dead event's work row is reset, a processed or ignored event gets one
 * anew, and the event's own row says `pending`.
 */
export async function requeueEvents(
  connection: StoreConnection,
  manager: EntityManager,
  ids: readonly string[],
): Promise<{ id: string; from: string }[]> {
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
