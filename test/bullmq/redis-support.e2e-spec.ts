import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { findRedis } from '../support/global-setup';
import {
  answersPing,
  dropRedisPrefix,
  NO_REDIS_MESSAGE,
  redisPrefix,
  redisServerBinary,
  redisUrl,
  startThrowawayRedis,
  ThrowawayRedis,
} from '../support/redis';

/** Runs `work` on a connection to `url`, closed afterwards. */
async function onServer<T>(url: string, work: (client: Redis) => Promise<T>): Promise<T> {
  const client = new Redis(url, { maxRetriesPerRequest: 0, retryStrategy: () => null });
  try {
    return await work(client);
  } finally {
    client.disconnect();
  }
}

function restoreEnv(name: string, value: string | undefined): void {
  if (value === undefined) delete process.env[name];
  else process.env[name] = value;
}

/** A directory for PATH whose `redis-server` prints `words` and exits 1, as a broken install does. */
function brokenRedisServerDir(words: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'pw-broken-redis-'));
  const binary = join(dir, 'redis-server');
  writeFileSync(binary, `#!/bin/sh\necho '${words}' >&2\nexit 1\n`);
  chmodSync(binary, 0o755);
  return dir;
}

/** A port nothing listens on: a throwaway server's, once it is stopped. */
async function deadUrl(): Promise<string> {
  const server = await startThrowawayRedis();
  await server.stop();
  return server.url;
}

describe('the throwaway redis-server', () => {
  let server: ThrowawayRedis;

  beforeAll(async () => {
    server = await startThrowawayRedis();
  });

  afterAll(async () => {
    await server?.stop();
  });

  it('keeps nothing across a restart and answers again on the same port', async () => {
    const dir = await onServer(server.url, async (client) => {
      await client.set('order:1', 'paid');
      expect(await client.get('order:1')).toBe('paid');
      const [, save] = (await client.config('GET', 'save')) as string[];
      const [, appendonly] = (await client.config('GET', 'appendonly')) as string[];
      expect({ save, appendonly }).toEqual({ save: '', appendonly: 'no' });
      return ((await client.config('GET', 'dir')) as string[])[1];
    });

    await server.restart();

    expect(server.url).toBe(`redis://127.0.0.1:${server.port}`);
    await onServer(server.url, async (client) => {
      expect(await client.ping()).toBe('PONG');
      expect(await client.get('order:1')).toBeNull();
      expect(await client.dbsize()).toBe(0);
    });
    expect(readdirSync(dir)).toEqual([]);
  });

  it('is down after kill() until restart()', async () => {
    await server.kill();
    expect(await answersPing(server.url)).toBe(false);

    await server.restart();
    expect(await answersPing(server.url)).toBe(true);
  });

  it('is empty after flushAll(), in every database', async () => {
    await onServer(server.url, async (client) => {
      await client.set('a', '1');
      await client.select(3);
      await client.set('b', '2');
    });

    await server.flushAll();

    await onServer(server.url, async (client) => {
      expect(await client.dbsize()).toBe(0);
      await client.select(3);
      expect(await client.dbsize()).toBe(0);
    });
  });

  it('is gone, with its directory, after stop()', async () => {
    const other = await startThrowawayRedis();
    const dir = await onServer(
      other.url,
      async (client) => ((await client.config('GET', 'dir')) as string[])[1],
    );
    expect(existsSync(dir)).toBe(true);

    await other.stop();

    expect(await answersPing(other.url)).toBe(false);
    expect(existsSync(dir)).toBe(false);
  });

  it('names the fix when redis-server is not installed', async () => {
    await expect(startThrowawayRedis('/nonexistent')).rejects.toThrow(NO_REDIS_MESSAGE);
  });
});

describe('the Redis the global setup chose', () => {
  it('is what redisUrl() returns, and it answers PING', async () => {
    const url = redisUrl();
    expect(url).toBe(process.env.TEST_REDIS_URL);
    expect(await onServer(url, (client) => client.ping())).toBe('PONG');
  });

  it('redisUrl() names the fix, and why, when the setup found none', () => {
    const { TEST_REDIS_URL, TEST_REDIS_MISSING } = process.env;
    try {
      delete process.env.TEST_REDIS_URL;
      delete process.env.TEST_REDIS_MISSING;
      expect(() => redisUrl()).toThrow(NO_REDIS_MESSAGE);
      process.env.TEST_REDIS_MISSING = 'redis-server is not on PATH.';
      expect(() => redisUrl()).toThrow(`${NO_REDIS_MESSAGE}. redis-server is not on PATH.`);
    } finally {
      restoreEnv('TEST_REDIS_URL', TEST_REDIS_URL);
      restoreEnv('TEST_REDIS_MISSING', TEST_REDIS_MISSING);
    }
  });

  it('dropRedisPrefix() removes only the keys under its prefix', async () => {
    const url = redisUrl();
    const mine = redisPrefix();
    const theirs = redisPrefix();
    expect(mine).toMatch(/^pwt-[0-9a-f]{12}$/);
    expect(mine).not.toBe(theirs);
    // NOTE: more keys than one SCAN page, so the cursor has to go round.
    const count = 1200;
    await onServer(url, async (client) => {
      const pipeline = client.pipeline();
      for (let i = 0; i < count; i += 1) pipeline.set(`${mine}:payments:${i}`, 'x');
      pipeline.set(`${theirs}:payments:1`, 'x');
      pipeline.set(`${mine}x:payments:1`, 'x');
      await pipeline.exec();
    });

    try {
      expect(await dropRedisPrefix(url, mine)).toBe(count);

      await onServer(url, async (client) => {
        expect(await client.exists(`${mine}:payments:0`, `${mine}:payments:${count - 1}`)).toBe(0);
        expect(await client.get(`${theirs}:payments:1`)).toBe('x');
        expect(await client.get(`${mine}x:payments:1`)).toBe('x');
      });
    } finally {
      await dropRedisPrefix(url, theirs);
      await onServer(url, (client) => client.unlink(`${mine}x:payments:1`));
    }
  });
});

describe('finding a Redis for a run', () => {
  it('takes TEST_REDIS_URL when it answers, and refuses it at once when it does not', async () => {
    const url = redisUrl();
    await expect(findRedis({ TEST_REDIS_URL: url })).resolves.toEqual({ url });

    const dead = await deadUrl();
    const started = Date.now();
    await expect(findRedis({ TEST_REDIS_URL: dead })).rejects.toThrow(
      `TEST_REDIS_URL=${dead} does not answer PING`,
    );
    expect(Date.now() - started).toBeLessThan(3000);
  });

  it('takes the local server when it answers', async () => {
    const url = redisUrl();
    await expect(findRedis({ PATH: '' }, url)).resolves.toEqual({ url });
  });

  it('starts a throwaway redis-server from PATH when no server answers', async () => {
    const dead = await deadUrl();
    const choice = await findRedis({ PATH: process.env.PATH }, dead);
    try {
      expect(choice.url).toBe(choice.server?.url);
      expect(choice.url).not.toBe(dead);
      expect(await answersPing(choice.url!)).toBe(true);
    } finally {
      await choice.server?.stop();
    }
  });

  it('goes on without Redis, quoting redis-server, when it cannot start', async () => {
    const dead = await deadUrl();
    const dir = brokenRedisServerDir('Fatal error loading the DB');
    try {
      await expect(startThrowawayRedis(dir)).rejects.toThrow(/exited \(1\):\nFatal error loading/);
      const choice = await findRedis({ PATH: dir }, dead);
      expect(choice.url).toBeUndefined();
      expect(choice.missing).toContain(
        `${dead} did not answer PING and redis-server did not start`,
      );
      expect(choice.missing).toContain('Fatal error loading the DB');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('goes on without Redis, saying why, when neither a server nor redis-server is there', async () => {
    const dead = await deadUrl();
    expect(redisServerBinary('/nonexistent')).toBeUndefined();
    await expect(findRedis({ PATH: '/nonexistent' }, dead)).resolves.toEqual({
      missing: `${dead} did not answer PING and redis-server is not on PATH.`,
    });
  });
});
