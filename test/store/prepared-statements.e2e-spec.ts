import { Pool } from 'pg';
import { EntitySubscriberInterface, In, QueryFailedError } from 'typeorm';
import { stripeEndpoint, WebhooksModuleOptions } from 'nestjs-payment-webhooks';
import { post } from '../support/http';
import { PreparedStatements, WebhookEventEntity } from '../support/internals';
import { stripePaymentEvent } from '../support/stripe-event';
import { eventually, startTestApp, statementsSent, TestApp, TestEffect } from '../support/test-app';

const SECRET = 'whsec_prepared_statements';

function options(storage?: WebhooksModuleOptions['storage']): WebhooksModuleOptions {
  return {
    endpoints: [stripeEndpoint({ name: 'stripe', secret: SECRET })],
    dispatch: { concurrency: 4, pollIntervalMs: 100 },
    ...(storage ? { storage } : {}),
  };
}

/** Delivers `count` signed Stripe payments and waits until each one's effect is committed. */
async function deliverAndHandle(app: TestApp, count: number): Promise<string[]> {
  const events = Array.from({ length: count }, () => stripePaymentEvent(SECRET));
  const answers = await Promise.all(
    events.map((event) => post(`${app.url}/webhooks/stripe`, event.body, event.headers())),
  );
  expect(answers.map((answer) => answer.status)).toEqual(events.map(() => 200));
  const ids = events.map((event) => event.id);
  const effects = app.dataSource.getRepository(TestEffect);
  await eventually(async () => (await effects.countBy({ eventId: In(ids) })) === count);
  await eventually(
    async () =>
      (await app.dataSource
        .getRepository(WebhookEventEntity)
        .countBy({ eventId: In(ids), status: 'processed' })) === count,
  );
  // NOTE: a second look: no effect was written twice while the events settled.
  expect(await effects.countBy({ eventId: In(ids) })).toBe(count);
  return ids;
}

/**
 * The package's prepared statements on every connection the app's pool holds idle: each idle
 * connection is taken at once (so none is seen twice) and asked for its own statements.
 */
async function preparedOnIdleConnections(app: TestApp): Promise<string[][]> {
  const pool = (app.dataSource.driver as unknown as { master: Pool }).master;
  const clients = await Promise.all(Array.from({ length: pool.idleCount }, () => pool.connect()));
  try {
    return await Promise.all(
      clients.map(async (client) => {
        const { rows } = await client.query<{ statement: string }>(
          "SELECT statement FROM pg_prepared_statements WHERE name LIKE 'payment_webhooks_%'",
        );
        return rows.map((row) => row.statement);
      }),
    );
  } finally {
    clients.forEach((client) => client.release());
  }
}

describe('prepared statements on PostgreSQL', () => {
  describe('by default', () => {
    let app: TestApp;

    beforeAll(async () => {
      app = await startTestApp({ platform: 'express', database: 'postgres', webhooks: options() });
    });

    afterAll(() => app.close());

    it('handles each event once while the ledger and settlement statements run prepared', async () => {
      await deliverAndHandle(app, 30);
      const statements = (await preparedOnIdleConnections(app)).flat();
      expect(statements.some((sql) => sql.startsWith('INSERT INTO webhook_handler_runs'))).toBe(
        true,
      );
      expect(
        statements.some((sql) =>
          /^WITH held AS \(DELETE FROM webhook_work .*UPDATE webhook_events SET/.test(sql),
        ),
      ).toBe(true);
      // NOTE: the group-commit insert's text grows with its batch, and the claim is planned
      // for each claim's values: neither is prepared.
      expect(statements.some((sql) => /VALUES \([^)]*\), \(/.test(sql))).toBe(false);
      expect(statements.some((sql) => sql.includes('SKIP LOCKED'))).toBe(false);
    });

    it("logs the package's prepared statements through TypeORM's logger as before", async () => {
      const sent = await statementsSent(app, async () => {
        await deliverAndHandle(app, 3);
      });
      expect(sent.filter((sql) => sql.startsWith('INSERT INTO webhook_handler_runs'))).toHaveLength(
        3,
      );
    });

    it('lets a subscriber that watches queries see every statement (they run unprepared then)', async () => {
      const seen: string[] = [];
      const watcher: EntitySubscriberInterface = {
        afterQuery: (event) => void seen.push(event.query),
      };
      const subscribers = app.dataSource.subscribers;
      subscribers.push(watcher);
      try {
        await deliverAndHandle(app, 3);
      } finally {
        subscribers.splice(subscribers.indexOf(watcher), 1);
      }
      expect(seen.filter((sql) => sql.startsWith('INSERT INTO webhook_handler_runs'))).toHaveLength(
        3,
      );
    });

    it("fails a statement the server refuses with TypeORM's QueryFailedError, logged as such", async () => {
      const prepared = new PreparedStatements(app.dataSource);
      const errors: string[] = [];
      const { logger } = app.dataSource;
      const logQueryError = logger.logQueryError.bind(logger);
      logger.logQueryError = (error, query, ...rest) => {
        errors.push(query);
        return logQueryError(error, query, ...rest);
      };
      const runner = app.dataSource.createQueryRunner();
      try {
        const failed = prepared.rows(runner, 'SELECT missing_column FROM webhook_events', []);
        await expect(failed).rejects.toBeInstanceOf(QueryFailedError);
        await expect(failed).rejects.toThrow(/missing_column/);
        expect(errors).toEqual(['SELECT missing_column FROM webhook_events']);
        // NOTE: the connection is still usable after the refused statement.
        expect(await prepared.rows(runner, 'SELECT $1::int AS one', [1])).toEqual([{ one: 1 }]);
      } finally {
        logger.logQueryError = logQueryError;
        await runner.release();
      }
    });
  });

  describe('with storage.preparedStatements false', () => {
    let app: TestApp;

    beforeAll(async () => {
      app = await startTestApp({
        platform: 'express',
        database: 'postgres',
        webhooks: options({ preparedStatements: false }),
      });
    });

    afterAll(() => app.close());

    it('handles each event once and leaves no prepared statement on any connection', async () => {
      await deliverAndHandle(app, 30);
      const perConnection = await preparedOnIdleConnections(app);
      expect(perConnection.length).toBeGreaterThan(0);
      expect(perConnection.flat()).toEqual([]);
    });
  });
});
