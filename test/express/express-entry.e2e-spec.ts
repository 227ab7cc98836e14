import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureBuiltCli } from '../support/cli';
import { signedStripeEvent } from '../support/stripe-event';

const ROOT = join(__dirname, '..', '..');

/**
 * An app that imports only `nestjs-payment-webhooks/express` (the built package), receives a
 * signed Stripe delivery (`BODY`, `SIGNATURE`) through the router on plain `node:http`, and
 * prints what it loaded.
 */
const APP = `
const http = require('node:http');
const { DataSource } = require('typeorm');
const webhooks = require(process.env.ENTRY);

async function main() {
  const dataSource = new DataSource({
    type: 'better-sqlite3',
    database: process.env.DATABASE,
    entities: webhooks.webhookEntities,
    migrations: webhooks.webhooksMigrations,
  });
  await dataSource.initialize();
  await dataSource.runMigrations();
  const handled = [];
  const router = await webhooks.createWebhooksRouter({
    dataSource,
    endpoints: [webhooks.stripeEndpoint({ name: 'stripe', secret: 'whsec_entry' })],
    dispatch: { pollIntervalMs: 50 },
    handlers: [{ on: 'payment.succeeded', name: 'fulfil', handle: (event) => handled.push(event.eventId) }],
    logger: { log() {}, warn() {}, error() {} },
  });
  const server = http.createServer((req, res) => router(req, res, () => { res.statusCode = 404; res.end(); }));
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const answer = await fetch('http://127.0.0.1:' + server.address().port + '/stripe', {
    method: 'POST', body: process.env.BODY, headers: { 'content-type': 'application/json', 'stripe-signature': process.env.SIGNATURE },
  });
  for (let i = 0; i < 200 && handled.length === 0; i++) await new Promise((r) => setTimeout(r, 25));
  await new Promise((resolve) => server.close(resolve));
  await router.stop();
  await dataSource.destroy();
  const loaded = Object.keys(require.cache).filter((path) => path.includes('@nestjs'));
  process.stdout.write(JSON.stringify({ status: answer.status, handled, loaded }));
}
main().catch((error) => { console.error(error); process.exit(1); });
`;

describe('the nestjs-payment-webhooks/express entry', () => {
  beforeAll(() => ensureBuiltCli(), 120_000);

  it('receives and handles a delivery without loading any Nest package', () => {
    const entry = join(ROOT, 'dist', 'express', 'index.js');
    expect(existsSync(entry)).toBe(true);
    const event = signedStripeEvent('whsec_entry', { amount: 100, currency: 'eur' });
    const output = execFileSync(process.execPath, ['-e', APP], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH ?? '',
        ENTRY: entry,
        DATABASE: join(mkdtempSync(join(tmpdir(), 'pw-entry-')), 'inbox.sqlite'),
        BODY: event.body,
        SIGNATURE: event.headers['stripe-signature'],
      },
      encoding: 'utf8',
    });
    expect(JSON.parse(output)).toEqual({ status: 200, handled: [event.id], loaded: [] });
  });

  it.each(['payments', 'providers', 'testing'])(
    'leaves nestjs-payment-webhooks/%s to an Express app too: it loads no Nest package',
    (entry) => {
      const script =
        `const names = Object.keys(require(${JSON.stringify(join(ROOT, 'dist', entry, 'index.js'))}));` +
        "const loaded = Object.keys(require.cache).filter((path) => path.includes('@nestjs'));" +
        'process.stdout.write(JSON.stringify({ some: names.length > 0, loaded }));';
      const output = execFileSync(process.execPath, ['-e', script], {
        cwd: ROOT,
        encoding: 'utf8',
      });
      expect(JSON.parse(output)).toEqual({ some: true, loaded: [] });
    },
  );
});
