import { EntityManager, EntityTarget, ObjectLiteral } from 'typeorm';
import { WebhookEventEntity } from '../schema/entities/webhook-event.entity';
import { WebhookHandlerRunEntity } from '../schema/entities/webhook-handler-run.entity';
import { WebhookHistoryEntity } from '../schema/entities/webhook-history.entity';
import { WebhookPauseEntity } from '../schema/entities/webhook-pause.entity';
import type { RecordedNames } from '../ports/inbox-queries.port';

/** What a pause stores for every endpoint or every handler: no name of its own. */
const EVERY = '*';

/** The distinct values of `property` in the table of `entity`, nulls left out. */
async function distinct<T extends ObjectLiteral>(
  manager: EntityManager,
  entity: EntityTarget<T>,
  property: string,
): Promise<string[]> {
  const rows = await manager
    .createQueryBuilder(entity, 'r')
    .select(`DISTINCT r.${property}`, 'name')
    .where(`r.${property} IS NOT NULL`)
    .getRawMany<{ name: string }>();
  return rows.map((row) => row.name);
}

/** `names` once each, sorted, without `*`. */
function sorted(names: readonly string[]): string[] {
  return [...new Set(names)].filter((name) => name !== EVERY).sort();
}

/**
 * The endpoint names and handler keys the database records: those of stored events, handler
 * runs, failed attempts (and other history rows) and pauses.
 */
export async function recordedNames(manager: EntityManager): Promise<RecordedNames> {
  const endpoints = await distinct(manager, WebhookEventEntity, 'endpoint');
  const ran = await distinct(manager, WebhookHandlerRunEntity, 'handlerKey');
  const failed = await distinct(manager, WebhookHistoryEntity, 'handlerKey');
  const pauses = await manager.find(WebhookPauseEntity);
  return {
    endpoints: sorted([...endpoints, ...pauses.map((pause) => pause.endpoint)]),
    handlers: sorted([...ran, ...failed, ...pauses.map((pause) => pause.handlerKey)]),
  };
}
