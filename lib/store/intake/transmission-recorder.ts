import { createHash } from 'node:crypto';
import { SafeLogger } from '../../telemetry/safe-logger';
import { EntityManager } from 'typeorm';
import { LockWaitTimeout } from '../connections/connection-lock';
import { InboxRecorder } from './inbox-recorder';
import { StoreConnection } from '../connections/store-connection';
import { NewTransmission, RecordedTransmission } from '../ports/inbox-writer.port';

/** Least time between two prunes of one endpoint's transmissions. */
const PRUNE_INTERVAL_MS = 3_600_000;
/** The `transmission_id` column's length; a longer id is stored as its SHA-256. */
const MAX_ID_LENGTH = 255;

/**
 * Remembers which body each signed transmission came with (`webhook_transmissions`), on the
 * answer path as events are recorded: one `INSERT … ON CONFLICT DO NOTHING`, read back when the
 * id was there already. On SQLite a check that cannot wait for the database file is made in the
 * intake, which also sees the rows of the app's file.
 *
 * Rows are pruned here rather than by the retention schedule: how long one must be kept is the
 * endpoint's time window, which the delivery states (`NewTransmission.forgetBefore`) and the
 * retention options do not know; and it keeps working with the retention schedule off.
 */
export class TransmissionRecorder {
  private readonly logger = new SafeLogger('WebhookTransmissions');
  private readonly insertSql: string;
  private readonly selectSql: string;
  private readonly pruneSql: string;
  private readonly prunedAt = new Map<string, number>();

  /**
   * @param answers runs the check as deliveries are recorded: on the connections kept for
   * answers, within `storeTimeoutMs`, the SQLite file waited for as briefly.
   */
  constructor(
    private readonly connection: StoreConnection,
    private readonly answers: Pick<InboxRecorder, 'answer'>,
  ) {
    const p = (i: number) => connection.param(i);
    this.insertSql =
      'INSERT INTO webhook_transmissions (endpoint, transmission_id, body_digest, received_at) ' +
      `VALUES (${p(1)}, ${p(2)}, ${p(3)}, ${p(4)}) ` +
      'ON CONFLICT (endpoint, transmission_id) DO NOTHING RETURNING body_digest';
    this.selectSql =
      'SELECT body_digest FROM webhook_transmissions ' +
      `WHERE endpoint = ${p(1)} AND transmission_id = ${p(2)}`;
    this.pruneSql = `DELETE FROM webhook_transmissions WHERE endpoint = ${p(1)} AND received_at < ${p(2)}`;
  }

  /**
   * Records the transmission unless it was seen, and says whether it came with the same body.
   * @throws WebhookStoreTimeoutError past `storeTimeoutMs`; the database's error when it fails.
   */
  async record(transmission: NewTransmission): Promise<RecordedTransmission> {
    const id =
      transmission.transmissionId.length > MAX_ID_LENGTH
        ? `sha256:${createHash('sha256').update(transmission.transmissionId).digest('hex')}`
        : transmission.transmissionId;
    const values: [string, string, string, unknown] = [
      transmission.endpoint,
      id,
      transmission.bodyDigest,
      this.connection.dialect.date(transmission.receivedAt),
    ];
    const sqlite = this.connection.sqlite;
    const digest = await this.answers
      .answer((manager) =>
        sqlite
          ? sqlite.recordTransmission(values[0], values[1], () => this.insert(manager, values))
          : this.insert(manager, values),
      )
      .catch((error: unknown) => {
        // NOTE: the file is held (a handler's transaction): the intake checks both places.
        if (!(error instanceof LockWaitTimeout) || !sqlite) throw error;
        return sqlite.stageTransmission(values);
      });
    if (digest === transmission.bodyDigest) {
      this.pruneNow(transmission);
    }
    return { sameBody: digest === transmission.bodyDigest };
  }

  /** The digest stored for the transmission in the app's database, the given one when new. */
  private async insert(
    manager: EntityManager,
    values: [string, string, string, unknown],
  ): Promise<string> {
    const [inserted] = (await this.connection.rows(manager, this.insertSql, values)) as {
      body_digest: string;
    }[];
    if (inserted) return inserted.body_digest;
    const [seen] = (await this.connection.rows(manager, this.selectSql, values.slice(0, 2))) as {
      body_digest: string;
    }[];
    return seen.body_digest;
  }

  /**
   * Deletes the endpoint's transmissions received before `forgetBefore`, at most once an hour
   * per endpoint, after the answer and behind the package's other work. A failure only delays it.
   */
  private pruneNow(transmission: NewTransmission): void {
    const now = Date.now();
    const last = this.prunedAt.get(transmission.endpoint);
    if (last !== undefined && now - last < PRUNE_INTERVAL_MS) {
      return;
    }
    this.prunedAt.set(transmission.endpoint, now);
    const params = [transmission.endpoint, this.connection.dialect.date(transmission.forgetBefore)];
    this.connection
      .read((manager) => this.connection.rows(manager, this.pruneSql, params))
      .catch((error: unknown) =>
        this.logger.warn(
          `Pruning the transmissions of ${transmission.endpoint} failed; tried again in an hour: ` +
            (error instanceof Error ? error.message : String(error)),
        ),
      );
  }
}
