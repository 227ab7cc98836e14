import { EntityManager } from 'typeorm';
import { StoreConnection } from '../connections/store-connection';
import { DEDUP_KEY_POSITIONS, dedupKeyOf, SAME_EVENT_POSITIONS } from '../schema/inbox-columns';

/** The unique index on (tenant, same_event): one stored row per underlying event. */
export const SAME_EVENT_INDEX = 'uq_webhook_events_tenant_same_event';

/** How many times a write that met a copy stored meanwhile is made again. */
const COPY_RETRIES = 3;

/** The key an event's copies share, from its values in `INSERT_COLUMNS` order, or undefined. */
export function sameEventOf(values: readonly unknown[]): string | undefined {
  const [tenant, sameEvent] = SAME_EVENT_POSITIONS.map((i) => values[i]);
  return typeof sameEvent === 'string' ? JSON.stringify([tenant, sameEvent]) : undefined;
}

/**
 * True when `error` is a refusal by the index on (tenant, same_event): another copy of the event
 * was stored between the look for it and the insert (PostgreSQL reports the index by name,
 * SQLite by its columns).
 */
export function isCopyConflict(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) {
    return false;
  }
  const { constraint, message } = error as { constraint?: unknown; message?: unknown };
  return (
    constraint === SAME_EVENT_INDEX ||
    (typeof message === 'string' && message.includes('webhook_events.same_event'))
  );
}

/**
 * Runs `write` again when it met a copy of its event stored by a concurrent write: the next
 * look finds that copy, and the delivery is counted on it.
 */
export async function retryingCopies<T>(write: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await write();
    } catch (error) {
      if (attempt >= COPY_RETRIES || !isCopyConflict(error)) {
        throw error;
      }
    }
  }
}

/** The look for another stored copy of an event, before it is written. */
export class EventCopies {
  constructor(private readonly connection: StoreConnection) {}

  /**
   * Counts a delivery on the stored row of another copy of its event (same tenant and
   * same_event, another endpoint or event id) and returns that row's `returning` columns with
   * `copy` set; undefined when no other copy is stored, and the event is to be written as usual.
   * An event without a key (`same_event` null) sends no statement.
   */
  async countedOnCopy<Row extends object>(
    manager: EntityManager,
    values: readonly unknown[],
    returning: string,
  ): Promise<(Row & { copy: true }) | undefined> {
    if (sameEventOf(values) === undefined) {
      return undefined;
    }
    const p = (i: number) => this.connection.param(i);
    const [tenant, sameEvent] = SAME_EVENT_POSITIONS.map((i) => values[i]);
    const [endpoint, , eventId] = DEDUP_KEY_POSITIONS.map((i) => values[i]);
    // NOTE: one statement finds the copy and counts the delivery; a row of the event's own key is
    // left to the upsert, which counts a re-delivery.
    const [row] = (await this.connection.rows(
      manager,
      'UPDATE webhook_events SET delivery_count = delivery_count + 1 ' +
        `WHERE tenant = ${p(1)} AND same_event = ${p(2)} AND NOT (endpoint = ${p(3)} AND event_id = ${p(4)}) ` +
        `RETURNING ${returning}`,
      [tenant, sameEvent, endpoint, eventId],
    )) as Row[];
    return row === undefined ? undefined : { ...row, copy: true };
  }

  /** `countedOnCopy()` for each event of `values`: the rows found, by the event's index. */
  async countedOnCopies<Row extends object>(
    manager: EntityManager,
    values: readonly (readonly unknown[])[],
    returning: string,
  ): Promise<Map<number, Row & { copy: true }>> {
    const copies = new Map<number, Row & { copy: true }>();
    for (const [i, event] of values.entries()) {
      const copy = await this.countedOnCopy<Row>(manager, event, returning);
      if (copy) copies.set(i, copy);
    }
    return copies;
  }
}

/**
 * The events one multi-row upsert writes, as the index of the first of each dedup key: not
 * those counted on a copy (`counted`), nor a later delivery of a key or of a copy key already in
 * it, which wait for it to be written.
 */
export function firstOfEach(
  values: readonly (readonly unknown[])[],
  counted: ReadonlyMap<number, unknown>,
): Map<string, number> {
  const first = new Map<string, number>();
  // NOTE: a second copy of an event within the batch waits for the first to be written, as a
  // repeated key does: one statement may not write both under the unique (tenant, same_event).
  const copiesSeen = new Set<string>();
  values.forEach((event, i) => {
    const key = dedupKeyOf(event);
    const sameEvent = sameEventOf(event);
    if (counted.has(i) || first.has(key) || (sameEvent && copiesSeen.has(sameEvent))) {
      return;
    }
    first.set(key, i);
    if (sameEvent) copiesSeen.add(sameEvent);
  });
  return first;
}
