import type { DataSource } from 'typeorm';

/** The part of a `pg` client the guard uses. */
interface PooledClient {
  on(event: 'error', listener: (error: Error) => void): void;
}

/** The part of a `pg` pool the guard uses: the event it emits for each new client. */
interface ClientPool {
  on(event: 'connect', listener: (client: PooledClient) => void): void;
}

/** Pools already guarded, so several stores on one data source add one listener. */
const guarded = new WeakSet<object>();

/**
 * Keeps a PostgreSQL server restart or `pg_terminate_backend` from ending the process. TypeORM
 * puts its error listener on a pooled client one promise turn after the pool hands the client
 * over, and the pool takes its own off before that; when the server's FATAL arrives in the same
 * read as a new connection's first ReadyForQuery, pg emits it in between, with no listener, and
 * Node ends the process. A listener on every new client closes the gap; the pool and TypeORM
 * still see the error and drop the broken client as before.
 */
export function guardPoolClients(dataSource: DataSource): void {
  const pool = (dataSource.driver as unknown as { master?: Partial<ClientPool> }).master;
  if (!pool || typeof pool.on !== 'function' || guarded.has(pool)) {
    return;
  }
  guarded.add(pool);
  pool.on('connect', (client) => client.on('error', ignore));
}

function ignore(): void {
  // NOTE: only keeps the error from being unhandled; whoever holds the client is told too.
}
