import { SafeLogger } from '../../telemetry/safe-logger';
import { StoreConnection } from '../connections/store-connection';
import { WORK_VACUUM_FAILED } from './work-vacuum.messages';

/**
 * Keeps `webhook_work` small on PostgreSQL. Every event's work row is inserted, updated when it
 * is claimed and deleted when it settles, so the table and its partial indexes fill with dead
 * versions that only VACUUM takes away; until it does, each claim walks past them, in the due
 * index's oldest pages first. Where autovacuum is off or slow to get to the table (its default
 * threshold counts a fifth of a table that is nearly empty), claims then get slower with every
 * event: 300,000 events left a claim reading 823 index pages instead of 4. So once `every` work
 * rows have been claimed since the last run, this runs `VACUUM (SKIP_LOCKED) webhook_work` on a
 * pooled connection, in the background: a few milliseconds for a table of a few live rows, and a
 * no-op while another instance's or autovacuum's vacuum holds the table.
 */
export class WorkVacuum {
  private claimed = 0;
  private running = false;
  private failed = false;
  private readonly logger = new SafeLogger('WebhookStore');

  /** @param every claimed work rows between two runs; 0 never runs it. */
  constructor(
    private readonly connection: StoreConnection,
    private readonly every: number,
  ) {}

  /** Counts `count` claimed work rows, and starts a VACUUM when it is due. */
  claimedRows(count: number): void {
    if (this.every <= 0 || this.failed || this.connection.dialect.kind !== 'postgres') {
      return;
    }
    this.claimed += count;
    if (this.claimed < this.every || this.running) {
      return;
    }
    this.claimed = 0;
    this.running = true;
    this.connection.appDataSource
      .query('VACUUM (SKIP_LOCKED) webhook_work')
      .catch((error: unknown) => {
        // NOTE: said once; the claims go on as they would without it.
        this.failed = true;
        this.logger.warn(
          WORK_VACUUM_FAILED(error instanceof Error ? error.message : String(error)),
        );
      })
      .finally(() => {
        this.running = false;
      });
  }
}
