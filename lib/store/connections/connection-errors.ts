import type { DataSource } from 'typeorm';

/** The part of a `pg` pool this uses: its documented `connect` event. */
interface PgPool {
  on(event: 'connect', listener: (client: PgClient) => void): void;
}

interface PgClient {
  on(event: 'error', listener: (error: Error) => void): void;
}

/** Pools already guarded, so two stores on one data source add one listener. */
const guarded = new WeakSet<object>();

/**
 * Gives every new connection of a PostgreSQL pool an `error` listener for good. pg hands a new
 * connection out from the handler of the packet that made it ready, while TypeORM puts its own
 * listener on only a moment later; when the server ends the session in that same packet (an
 * administrator's `pg_terminate_backend`, a server shutting down) the error has no listener and
 * ends the process. With this one it is absorbed: the first query on the connection fails, is
 * handled like any failed query (a claim or a store retried, a delivery answered 503), and pg
 * drops the connection when it is given back.
 */
export function guardNewConnections(dataSource: DataSource): void {
  const pool = (dataSource.driver as { master?: Partial<PgPool> }).master;
  if (!pool || typeof pool.on !== 'function' || guarded.has(pool)) {
    return;
  }
  guarded.add(pool);
  // NOTE: nothing to do with the error here: the query that meets the broken connection reports it.
  pool.on('connect', (client) => client.on('error', () => undefined));
}
