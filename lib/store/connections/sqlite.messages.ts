/** Error texts of the package's SQLite connections. Each one says what went wrong and how to fix it. */

export const NESTED_PACKAGE_TRANSACTION =
  'On SQLite the package runs one transaction at a time on its connection, and this ' +
  'call was made from inside one (a handler, or a WebhookTransactions.run() callback): ' +
  'it would wait for itself forever. Use the EntityManager you were given (ctx.manager) ' +
  'instead, or make the call after the transaction.';

export const APP_WRITE_INSIDE_PACKAGE_TRANSACTION =
  'On SQLite this write or transaction went through your own data source from inside a ' +
  'payment-event handler (or a WebhookTransactions.run() callback). The package runs that ' +
  "transaction on a connection of its own, which holds the database file's write lock until it " +
  'ends, so the write would wait for itself forever. Write through the EntityManager you were ' +
  'given (ctx.manager): your writes then commit or roll back with the handler.';

export const WAITED_FOR_APP_TRANSACTION = (ms: number) =>
  `Waited ${ms} ms for a transaction of your own data source to end: SQLite takes one writer at ` +
  'a time. A package call made from inside your own transaction (WebhookTransactions.run(), ' +
  'IdempotentCall, the admin API) would wait for it forever: make the call after your ' +
  'transaction commits. A handler attempt that failed this way is retried.';

export const INTAKE_PATH_IS_DATABASE = (path: string) =>
  `storage.sqliteIntakePath is the app's own database file (${path}): give the intake a file ` +
  'of its own, or leave the option out to use the default next to the database.';

export const APP_DATA_SOURCE_CLOSED =
  "The app's data source is closed (destroy() was called), and the package's own SQLite " +
  'connection stops with it: initialize the data source again, or restart the app.';

export const CONNECTION_LEFT_IN_TRANSACTION = (
  connection: string,
  open: { readonly driver: boolean; readonly typeorm: boolean },
) =>
  `The package's SQLite connection to ${connection} was left inside a transaction ` +
  `(${open.driver ? 'SQLite' : 'TypeORM only'} says one is open), as a failed COMMIT, ROLLBACK ` +
  'or RELEASE leaves it (a full disk, an I/O error): what was written since is not committed. ' +
  'The connection was reopened, which rolls it back, and this write failed so that it is tried ' +
  'again (a delivery is answered 503, a handler attempt is retried).';
