'use strict';
/** The Redis the BullMQ runs of the benchmark use, and the removal of one run's keys. */
const IORedis = require('ioredis');

/** `TEST_REDIS_URL` (the test suite's setting) when set, else the local server. */
function benchRedisUrl() {
  return process.env.TEST_REDIS_URL || 'redis://127.0.0.1:6379';
}

async function withRedis(url, work) {
  const client = new IORedis(url, {
    lazyConnect: true,
    connectTimeout: 3000,
    maxRetriesPerRequest: 1,
    retryStrategy: () => null,
  });
  try {
    await client.connect();
    return await work(client);
  } finally {
    client.disconnect();
  }
}

/** The server's version; throws naming the URL when it does not answer. */
async function redisVersion(url) {
  try {
    return await withRedis(url, async (client) => {
      const info = await client.info('server');
      return /^redis_version:(.+)$/m.exec(info)?.[1].trim() ?? 'unknown';
    });
  } catch (error) {
    throw new Error(
      `No Redis at ${url} (${error.message}): start redis-server, or set TEST_REDIS_URL.`,
    );
  }
}

/** Deletes every key BullMQ keeps under `prefix` (`<prefix>:…`); resolves to how many. */
async function dropRedisPrefix(url, prefix) {
  return withRedis(url, async (client) => {
    const match = `${prefix.replace(/[*?[\]\\]/g, (char) => `\\${char}`)}:*`;
    let cursor = '0';
    let dropped = 0;
    do {
      const [next, keys] = await client.scan(cursor, 'MATCH', match, 'COUNT', 1000);
      if (keys.length > 0) dropped += await client.unlink(...keys);
      cursor = next;
    } while (cursor !== '0');
    return dropped;
  });
}

module.exports = { benchRedisUrl, redisVersion, dropRedisPrefix };
