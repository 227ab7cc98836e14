import { DataSource, EntityManager, In } from 'typeorm';
import type { WebhookEventStatus } from 'nestjs-payment-webhooks';
import { isParked, WebhookEventEntity, WebhookWorkEntity } from './internals';

/** What a test sets on stored events besides their status. */
export interface InboxState {
  attempts?: number;
  nextAttemptAt?: Date | null;
  lockedBy?: string | null;
  lockedUntil?: Date | null;
  lastError?: string | null;
  processedAt?: Date | null;
}

/**
 * Puts stored events in `status` as the package leaves them: a processed or ignored event has
 * no work row; a pending, retrying or dead one has its work row with the same status; a
 * running one is `processing` on its work row and `pending` (first attempt) or `retrying` on
 * its own row.
 */
export async function putInState(
  source: DataSource | EntityManager,
  ids: string | readonly string[],
  status: WebhookEventStatus,
  state: InboxState = {},
): Promise<void> {
  const manager = 'manager' in source ? source.manager : source;
  const list = typeof ids === 'string' ? [ids] : [...ids];
  const attempts = state.attempts ?? (status === 'pending' ? 0 : 1);
  const working = status === 'pending' || status === 'processing' || status === 'retrying';
  const nextAttemptAt =
    state.nextAttemptAt !== undefined ? state.nextAttemptAt : working ? new Date() : null;
  const own: WebhookEventStatus =
    status === 'processing' ? (attempts > 1 ? 'retrying' : 'pending') : status;
  await manager.update(
    WebhookEventEntity,
    { id: In(list) },
    {
      status: own,
      attempts,
      nextAttemptAt,
      ...(state.lastError === undefined ? {} : { lastError: state.lastError }),
      ...(state.processedAt === undefined ? {} : { processedAt: state.processedAt }),
    },
  );
  await manager.delete(WebhookWorkEntity, { eventId: In(list) });
  if (status === 'processed' || status === 'ignored') {
    return;
  }
  await manager.insert(
    WebhookWorkEntity,
    list.map((eventId) => ({
      eventId,
      status,
      attempts,
      nextAttemptAt,
      lockedBy: state.lockedBy ?? (status === 'processing' ? 'test-worker' : null),
      lockedUntil:
        state.lockedUntil ?? (status === 'processing' ? new Date(Date.now() + 60_000) : null),
    })),
  );
}

/** Every stored event settled as processed, with no work left: a clean start for a claim. */
export async function settleAll(source: DataSource | EntityManager): Promise<void> {
  const manager = 'manager' in source ? source.manager : source;
  await manager.createQueryBuilder().delete().from(WebhookWorkEntity).execute();
  await manager
    .createQueryBuilder()
    .update(WebhookEventEntity)
    .set({ status: 'processed', nextAttemptAt: null })
    .execute();
}

/** The live status of event `id`: its work row's when it has one, else its own. */
export async function liveStatus(
  source: DataSource | EntityManager,
  id: string,
): Promise<WebhookEventStatus | undefined> {
  const manager = 'manager' in source ? source.manager : source;
  const work = await manager.findOneBy(WebhookWorkEntity, { eventId: id });
  if (work) {
    return work.status;
  }
  return (await manager.findOneBy(WebhookEventEntity, { id }))?.status;
}

/** The event of provider event id `eventId` as it stands: its work row's state when it has one. */
export async function liveEvent(
  source: DataSource | EntityManager,
  eventId: string,
): Promise<
  (WebhookEventEntity & { lockedBy: string | null; lockedUntil: Date | null }) | undefined
> {
  const manager = 'manager' in source ? source.manager : source;
  const event = await manager.findOneBy(WebhookEventEntity, { eventId });
  if (!event) {
    return undefined;
  }
  const work = await manager.findOneBy(WebhookWorkEntity, { eventId: event.id });
  return Object.assign(event, {
    ...(work
      ? { status: work.status, attempts: work.attempts, nextAttemptAt: work.nextAttemptAt }
      : {}),
    lockedBy: work?.lockedBy ?? null,
    lockedUntil: work?.lockedUntil ?? null,
  });
}

/**
 * Leaves the event of provider event id `eventId` as a worker that claimed it `attempts` times
 * and died holding it leaves it: running, leased until `lockedUntil`.
 */
export async function heldByCrashedWorker(
  source: DataSource | EntityManager,
  eventId: string,
  attempts: number,
  lockedUntil: Date,
): Promise<void> {
  const manager = 'manager' in source ? source.manager : source;
  const { id } = await manager.findOneByOrFail(WebhookEventEntity, { eventId });
  await putInState(manager, id, 'processing', {
    attempts,
    lockedBy: 'crashed-worker',
    lockedUntil,
  });
}

/**
 * Whether the event of provider event id `eventId` is parked: a worker claimed it, found its
 * handlers held by a pause, and gave it back with its attempt not counted, due once the pause
 * is lifted. A held event is parked once the dispatcher has looked at it, so waiting for this
 * shows that a pause held it, with no fixed wait.
 */
export async function parkedByPause(
  source: DataSource | EntityManager,
  eventId: string,
): Promise<boolean> {
  return isParked((await liveEvent(source, eventId))?.nextAttemptAt);
}
