/**
 * The sample shop on plain Express (`npm run start:express`), without Nest. What it serves and
 * how to try it: docs/sample-shop.md. The router it mounts (shop.ts): docs/receiving.md#plain-express;
 * its handler (order-payments.ts): docs/handlers.md; its
 * endpoints (webhook-endpoints.ts): docs/providers/.
 */
import { createShop } from './shop';

async function main(): Promise<void> {
  const shop = await createShop();
  const port = Number(process.env.PORT ?? 3000);
  const host = process.env.HOST;
  const server = host === undefined ? shop.app.listen(port) : shop.app.listen(port, host);
  server.once('listening', () => {
    const address = server.address();
    const where = typeof address === 'object' && address ? address.port : port;
    console.log(
      `[SampleShop] Listening on http://localhost:${where} (express router, ${process.env.DATABASE_URL ? 'PostgreSQL' : 'SQLite'}); webhooks at POST /webhooks/{stripe,qvard,standard,hmac,...} and /webhooks/merchants/{slug}`,
    );
  });
  // NOTE: stop taking requests first, then let running handlers finish, then close the database.
  const shutdown = () => server.close(() => void shop.close().then(() => process.exit(0)));
  process.once('SIGTERM', shutdown);
  process.once('SIGINT', shutdown);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
