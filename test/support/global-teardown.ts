import type { ThrowawayRedis } from './redis';

export default async function globalTeardown(): Promise<void> {
  const server = (globalThis as { __embeddedPostgres?: { stop(): Promise<void> } })
    .__embeddedPostgres;
  await server?.stop();
  await (globalThis as { __throwawayRedis?: ThrowawayRedis }).__throwawayRedis?.stop();
}
