import { Client } from 'pg';
import { stripeEndpoint } from 'nestjs-payment-webhooks';
import { post } from '../support/http';
import { stripePaymentEvent } from '../support/stripe-event';
import { countEffects, eventually, startTestApp, TestApp } from '../support/test-app';

const SECRET = 'whsec_pool_connections_cut';
/**
 * Connections the server ends while the app opens more. Without the guard, the process met an
 * unhandled 'error' dozens of times in the first 150 cuts of every run tried.
 */
const CUTS = 300;
/** Longest the churn goes on, should the server cut less than that. */
const CHURN_AT_MOST_MS = 20_000;
const KILLER = 'pool-connections-cut-killer';

/**
 * A PostgreSQL server that ends the app's connections (a restart, a failover, an operator's
 * `pg_terminate_backend`) costs the app those connections, never the process: before, a FATAL
 * that reached a connection the pool had just opened was an unhandled 'error' event and Node
 * ended the process, mostly within a second of churn like this.
 */
describe('PostgreSQL ending the connections of a busy app', () => {
  let t: TestApp;
  let killer: Client;

  beforeAll(async () => {
    t = await startTestApp({
      platform: 'express',
      database: 'postgres',
      webhooks: { endpoints: [stripeEndpoint({ name: 'stripe', secret: SECRET })] },
    });
    killer = new Client({
      connectionString: (t.dataSource.options as { url: string }).url,
      application_name: KILLER,
    });
    await killer.connect();
  });

  afterAll(async () => {
    await killer?.end();
    await t?.close();
  });

  it('keeps the process up while every connection it opens is cut, then stores and runs', async () => {
    const database = t.dataSource.driver.database;
    const until = Date.now() + CHURN_AT_MOST_MS;
    let queries = 0;
    let cut = 0;
    const churning = () => cut < CUTS && Date.now() < until;
    const churn = async () => {
      while (churning()) {
        const runner = t.dataSource.createQueryRunner();
        try {
          await runner.connect();
          await runner.query('SELECT 1');
          queries += 1;
        } catch {
          // NOTE: a query on a connection just cut fails; the process must not.
        } finally {
          await runner.release().catch(() => undefined);
        }
      }
    };
    const cutAll = async () => {
      while (churning()) {
        const { rows } = await killer.query<{ n: string }>(
          'SELECT count(pg_terminate_backend(pid)) AS n FROM pg_stat_activity ' +
            'WHERE datname = $1 AND application_name <> $2 AND pid <> pg_backend_pid()',
          [database, KILLER],
        );
        cut += Number(rows[0].n);
        await new Promise((resolve) => setTimeout(resolve, Math.random() * 5));
      }
    };
    await Promise.all([...Array.from({ length: 16 }, churn), cutAll()]);
    expect(cut).toBeGreaterThanOrEqual(CUTS);
    expect(queries).toBeGreaterThan(0);

    const event = stripePaymentEvent(SECRET);
    await eventually(async () => {
      const answer = await post(`${t.url}/webhooks/stripe`, event.body, event.headers());
      return answer.status === 200;
    }, 10_000);
    await eventually(async () => (await countEffects(t, event.id)) === 1, 15_000);
  });
});
