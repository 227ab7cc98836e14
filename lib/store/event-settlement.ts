import { EntityManager } from 'typeorm';
import { WebhookEventEntity } from './entities/webhook-event.entity';
import { parameterList, Statement, StoreConnection } from './store-connection';
import { ProcessedResult } from './webhook-store.interface';

const MAX_ERROR_LENGTH = 2000;

/**
 * The statement that applies `changes` to a held event and ends its lease. Only the lease
 * holder may settle an event: a worker whose lease expired and was reclaimed by another must
 * not overwrite the newer outcome. It returns the event's id when the event was still held.
 * Its placeholders continue those of the parameter list given, when one is.
 */
export function settleStatement(
  connection: StoreConnection,
  id: string,
  workerId: string,
  changes: Partial<WebhookEventEntity>,
  { params, bind } = parameterList(connection.dialect),
): Statement {
  const assignments = connection.events.assignments(
    { ...changes, lockedBy: null, lockedUntil: null },
    bind,
  );
  const sql =
    `UPDATE webhook_events SET ${assignments.join(', ')} ` +
    `WHERE id = ${bind(id)} AND locked_by = ${bind(workerId)} AND status = 'processing' RETURNING id`;
  return { sql, params };
}

/** The changes that mark an event processed with `result`. */
export function processedChanges(
  now: Date,
  result: ProcessedResult = {},
): Partial<WebhookEventEntity> {
  return {
    status: 'processed',
    processedAt: now,
    lastError: null,
    nextAttemptAt: null,
    outcome: result.outcome ?? null,
    providerStatus: result.providerStatus ?? null,
  };
}

/** Settles events a worker holds: processed, ignored, retrying or dead. */
export class EventSettlement {
  constructor(private readonly connection: StoreConnection) {}

  markProcessed(
    id: string,
    workerId: string,
    now: Date,
    result?: ProcessedResult,
  ): Promise<boolean> {
    return this.finish(id, workerId, processedChanges(now, result));
  }

  markIgnored(id: string, workerId: string, now: Date): Promise<boolean> {
    return this.finish(id, workerId, { status: 'ignored', processedAt: now, nextAttemptAt: null });
  }

  scheduleRetry(
    id: string,
    workerId: string,
    nextAttemptAt: Date,
    error: string,
    result: ProcessedResult = {},
  ): Promise<boolean> {
    return this.finish(id, workerId, {
      status: 'retrying',
      nextAttemptAt,
      lastError: error.slice(0, MAX_ERROR_LENGTH),
      ...(result.providerStatus === undefined ? {} : { providerStatus: result.providerStatus }),
    });
  }

  markDead(id: string, workerId: string, error: string): Promise<boolean> {
    return this.finish(id, workerId, {
      status: 'dead',
      nextAttemptAt: null,
      lastError: error.slice(0, MAX_ERROR_LENGTH),
    });
  }

  /** True when the event was still held by `workerId`. */
  private finish(
    id: string,
    workerId: string,
    changes: Partial<WebhookEventEntity>,
  ): Promise<boolean> {
    return this.connection.lock.run(() =>
      this.settle(this.connection.dataSource.manager, id, workerId, changes),
    );
  }

  private async settle(
    manager: EntityManager,
    id: string,
    workerId: string,
    changes: Partial<WebhookEventEntity>,
  ): Promise<boolean> {
    const { sql, params } = settleStatement(this.connection, id, workerId, changes);
    return (await this.connection.rows(manager, sql, params)).length > 0;
  }
}
