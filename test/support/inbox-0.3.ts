import { DataSource, DataSourceOptions } from 'typeorm';
import { createInboxOf02, MIGRATIONS_OF_0_2 } from './inbox-0.2';
import { AddEventTenants1764800000000 } from './internals';

/** The migrations of release 0.3: events with tenants, before they had a history. */
export const MIGRATIONS_OF_0_3 = [...MIGRATIONS_OF_0_2, AddEventTenants1764800000000];

/**
 * Makes an inbox of 0.3 in the database of `options`: a seeded inbox of 0.2 (see
 * `createInboxOf02()`: every status, ledger rows, a running event leased to a worker that has
 * gone) upgraded by 0.3's own migration, and the events of `byHand` settled dead by hand, as
 * 0.3's `settleByHand()` leaves them.
 */
export async function createInboxOf03(
  options: DataSourceOptions,
  seed: { events: number; start: Date; handlerKeys: readonly string[]; byHand?: readonly string[] },
): Promise<void> {
  await createInboxOf02(options, seed);
  const of03 = await new DataSource({
    ...options,
    migrations: MIGRATIONS_OF_0_3,
    migrationsRun: true,
  }).initialize();
  try {
    const p = (n: number) => (options.type === 'postgres' ? `$${n}` : '?');
    for (const id of seed.byHand ?? []) {
      await of03.query(
        `UPDATE webhook_events SET status = 'dead', last_error = ${p(1)} WHERE id = ${p(2)}`,
        ['Settled by hand: order cancelled in the ERP', id],
      );
      await of03.query(
        `UPDATE webhook_work SET status = 'dead', next_attempt_at = NULL WHERE event_id = ${p(1)}`,
        [id],
      );
    }
  } finally {
    await of03.destroy();
  }
}
