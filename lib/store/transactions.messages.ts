/** Error texts of the package's transactions. */

export const ROLLBACK_FAILED = (rollback: string, cause: string) =>
  `The transaction could not be rolled back (${rollback}) after it failed (${cause}); ` +
  'nothing it wrote is taken as committed, and the connection is checked before its next use.';
