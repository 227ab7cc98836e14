import { AnswerStage, WAITING_FOR } from './store-timeout.messages';

/** Why the store cannot write, as the write check finds it. Each one names the fix. */

export const READ_ONLY_SESSION =
  'the database session is read-only (transaction_read_only is on): the data source reaches a ' +
  'standby, or default_transaction_read_only is set for the role or the database; connect to ' +
  'the primary, or turn the setting off and reconnect';

export const MISSING_WRITE_PRIVILEGES = (role: string, missing: ReadonlyMap<string, string[]>) =>
  `role "${role}" may not write the package's tables: ` +
  [...missing]
    .map(([table, privileges]) => `GRANT ${privileges.join(', ')} ON ${table} TO "${role}"`)
    .join('; ');

export const WRITE_CHECK_FAILED = (error: string) =>
  `a write to webhook_events that changes no row failed: ${error}`;

export const WRITE_CHECK_TIMEOUT = (timeoutMs: number, stage: AnswerStage) =>
  `a write to webhook_events that changes no row did not finish within ${timeoutMs} ms ` +
  `(storeTimeoutMs): ${WAITING_FOR[stage]}`;

export const DISK_FULL = (cause: string, since: Date) =>
  `the disk is full: ${cause}, since ${since.toISOString()}; deliveries are answered 503 (their ` +
  'providers retry them) until space is freed, and this check writes a probe row to see when it is';
