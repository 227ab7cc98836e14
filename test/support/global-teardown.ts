export default async function globalTeardown(): Promise<void> {
  const server = (globalThis as { __embeddedPostgres?: { stop(): Promise<void> } })
    .__embeddedPostgres;
  await server?.stop();
}
