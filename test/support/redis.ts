import { ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { accessSync, constants, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { Redis } from 'ioredis';

/** What the BullMQ suites tell a developer whose machine offers them no Redis. */
export const NO_REDIS_MESSAGE =
  "No Redis for the BullMQ suites: set TEST_REDIS_URL, start Redis on 127.0.0.1:6379, or install Debian's redis-server (apt-get install -y redis-server)";

/** The server the suites look for when TEST_REDIS_URL is not set. */
export const LOCAL_REDIS_URL = 'redis://127.0.0.1:6379';

const READY_TIMEOUT_MS = 10_000;

/** A client that fails at once instead of retrying or queueing commands while disconnected. */
function connectOnce(url: string, connectTimeout: number): Redis {
  const client = new Redis(url, {
    lazyConnect: true,
    connectTimeout,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    enableOfflineQueue: false,
  });
  // NOTE: ioredis prints every unhandled 'error' event; the failed command already says why.
  client.on('error', () => undefined);
  return client;
}

/** Runs `work` on a fresh connection to `url` and always disconnects. */
async function withRedis<T>(
  url: string,
  work: (client: Redis) => Promise<T>,
  connectTimeout = 2000,
): Promise<T> {
  const client = connectOnce(url, connectTimeout);
  try {
    await client.connect();
    return await work(client);
  } finally {
    // NOTE: once a failed connect has ended the client, disconnect() would only hold the process
    // open for ioredis's disconnect timeout (2 s) waiting for a close that already happened.
    if (client.status !== 'end') client.disconnect();
  }
}

/** True when the server at `url` answers PING within the connect timeout. */
export async function answersPing(url: string, connectTimeout = 2000): Promise<boolean> {
  try {
    return (await withRedis(url, (client) => client.ping(), connectTimeout)) === 'PONG';
  } catch {
    return false;
  }
}

/**
 * The server the BullMQ suites use, as chosen by the global setup. Throws, naming the fix, when
 * the machine offered none (the global setup records why in TEST_REDIS_MISSING).
 */
export function redisUrl(): string {
  const url = process.env.TEST_REDIS_URL;
  if (!url) {
    const why = process.env.TEST_REDIS_MISSING;
    throw new Error(why ? `${NO_REDIS_MESSAGE}. ${why}` : NO_REDIS_MESSAGE);
  }
  return url;
}

/** A BullMQ key prefix of its own for one suite, so suites sharing a server never meet. */
export function redisPrefix(): string {
  return `pwt-${randomBytes(6).toString('hex')}`;
}

function globEscaped(text: string): string {
  return text.replace(/[*?[\]\\]/g, (char) => `\\${char}`);
}

/** Deletes every key under `prefix` (as BullMQ names them: `<prefix>:...`); returns how many. */
export async function dropRedisPrefix(url: string, prefix: string): Promise<number> {
  return withRedis(url, async (client) => {
    const match = `${globEscaped(prefix)}:*`;
    let cursor = '0';
    let dropped = 0;
    do {
      const [next, keys] = await client.scan(cursor, 'MATCH', match, 'COUNT', 500);
      if (keys.length > 0) {
        dropped += await client.unlink(...keys);
      }
      cursor = next;
    } while (cursor !== '0');
    return dropped;
  });
}

/** The path of the `redis-server` binary on PATH, or undefined. */
export function redisServerBinary(path = process.env.PATH ?? ''): string | undefined {
  for (const dir of path.split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, 'redis-server');
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not in this directory
    }
  }
  return undefined;
}

/** A TCP port on 127.0.0.1 that nothing listens on (at the time of asking). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/** A redis-server of the caller's own, keeping nothing on disk. */
export interface ThrowawayRedis {
  readonly url: string;
  readonly port: number;
  /** SIGTERM, wait for the exit, start again on the same port and wait until PING answers. */
  restart(): Promise<void>;
  /** SIGKILL and wait for the exit; the server stays down until `restart()`. */
  kill(): Promise<void>;
  /** Deletes every key of every database. */
  flushAll(): Promise<void>;
  /** Stops the server for good and removes its directory. */
  stop(): Promise<void>;
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

async function terminate(child: ChildProcess | undefined, signal: NodeJS.Signals): Promise<void> {
  if (!child) return;
  const done = exited(child);
  child.kill(signal);
  await done;
}

/** Polls PING until the server answers; throws with its output if it exits or never answers. */
async function untilReady(child: ChildProcess, url: string, output: () => string): Promise<void> {
  let spawnError: Error | undefined;
  child.once('error', (error) => (spawnError = error));
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (!(await answersPing(url, 500))) {
    if (spawnError) throw spawnError;
    if (child.exitCode !== null || child.signalCode !== null) {
      const how = child.signalCode ?? child.exitCode;
      throw new Error(`redis-server for ${url} exited (${how}):\n${output()}`);
    }
    if (Date.now() > deadline) {
      throw new Error(`redis-server for ${url} did not answer PING:\n${output()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** Starts redis-server on `port`, keeping nothing on disk, and resolves once PING answers. */
async function launch(binary: string, port: number, dir: string): Promise<ChildProcess> {
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'];
  const child = spawn(binary, [...args, '--dir', dir], { stdio: ['ignore', 'pipe', 'pipe'] });
  // NOTE: a run stopped before its teardown must not leave the server behind.
  const orphaned = () => child.kill('SIGKILL');
  process.once('exit', orphaned);
  child.once('exit', () => process.off('exit', orphaned));
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-4000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  try {
    await untilReady(child, `redis://127.0.0.1:${port}`, () => output);
  } catch (error) {
    await terminate(child, 'SIGKILL');
    throw error;
  }
  return child;
}

/**
 * Starts a redis-server of its own on a free port, for suites (and the reliability runner)
 * that restart, kill or flush their server. Throws, naming the fix, when none is installed.
 */
export async function startThrowawayRedis(path = process.env.PATH ?? ''): Promise<ThrowawayRedis> {
  const binary = redisServerBinary(path);
  if (!binary) throw new Error(`${NO_REDIS_MESSAGE}. redis-server is not on PATH.`);
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'pw-redis-'));
  const url = `redis://127.0.0.1:${port}`;
  let child: ChildProcess | undefined;
  try {
    child = await launch(binary, port, dir);
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  return {
    url,
    port,
    async restart() {
      await terminate(child, 'SIGTERM');
      child = undefined;
      child = await launch(binary, port, dir);
    },
    async kill() {
      await terminate(child, 'SIGKILL');
      child = undefined;
    },
    async flushAll() {
      await withRedis(url, (client) => client.flushall());
    },
    async stop() {
      await terminate(child, 'SIGTERM');
      child = undefined;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
