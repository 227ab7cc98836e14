import { In } from 'typeorm';
import { WebhookEventEntity } from '../schema/entities/webhook-event.entity';
import { WebhookPauseEntity } from '../schema/entities/webhook-pause.entity';
import type { DispatchPause, DispatchPauseScope, PauseQueries } from '../ports/pause-queries.port';
import { PARKED_UNTIL } from '../ports/webhook-event-status';
import { parameterList, StoreConnection } from '../connections/store-connection';
import { pauseKey, readPauses } from './event-history';

/** {@link PauseQueries} on PostgreSQL or SQLite through the store's connection. */
export class TypeOrmPauseQueries implements PauseQueries {
  constructor(private readonly connection: StoreConnection) {}

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
}
