import { In } from 'typeorm';
import { WebhookEventEntity } from '../schema/entities/webhook-event.entity';
import { WebhookHandlerRunEntity } from '../schema/entities/webhook-handler-run.entity';
import { WebhookHistoryEntity } from '../schema/entities/webhook-history.entity';
import { WebhookWorkEntity } from '../schema/entities/webhook-work.entity';
import { writeHistory } from '../history/event-history';
import type { OperatorAction } from '../ports/event-history';
import type { WebhookEventFilter } from '../ports/event-filter';
import type { OperatorActions, SettledEventSelection } from '../ports/operator-actions.port';
import { REPLAYABLE_STATUSES } from '../ports/webhook-event-status';
import { parameterList, StoreConnection } from '../connections/store-connection';
import { requeueEvents } from '../work/requeue';
import { LIVE_STATUS } from '../work/work-rows';
import { filteredEvents } from './event-filter-query';

/** Longest last error kept on an event. */
const MAX_ERROR_LENGTH = 2000;

/** {@link OperatorActions} on PostgreSQL or SQLite through the store's connection. */
export class TypeOrmOperatorActions implements OperatorActions {
  constructor(private readonly connection: StoreConnection) {}

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
}
