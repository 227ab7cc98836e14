/** Error texts of the package's transactions. Each one says first what happened. */

/** What a failed ROLLBACK after a failed transaction adds to the failure itself. */
const ROLLBACK_ALSO_FAILED = (rollback: string) =>
  `the transaction could not be rolled back afterwards either (${rollback}): nothing it wrote ` +
  'is taken as committed, and the connection is checked before its next use';

export const ROLLBACK_FAILED = (cause: string, rollback: string) =>
  `${cause}; ${ROLLBACK_ALSO_FAILED(rollback)}.`;

export const DISK_FULL_ROLLBACK_FAILED = (cause: string, rollback: string) =>
  `The disk is full: ${cause}; ${ROLLBACK_ALSO_FAILED(rollback)}. Free space on the ` +
  "database's disk: meanwhile deliveries are answered 503 (their providers retry them) and " +
  'failed handler attempts are retried, so nothing is lost.';
