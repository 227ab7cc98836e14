import { stripeEndpoint } from 'nestjs-payment-webhooks';
import { startTestApp, TestApp } from '../support/test-app';

interface PgPool {
  connect(): Promise<{ emit(event: 'error', error: Error): boolean; release(error?: Error): void }>;
}

describe('a PostgreSQL connection the server ends the moment it is handed out', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({
      platform: 'express',
      database: 'postgres',
      webhooks: { endpoints: [stripeEndpoint({ name: 'stripe', secret: 'whsec_x' })] },
    });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('has an error listener before anyone else puts one on it, so the error cannot end the process', async () => {
    // NOTE: pg hands a connection out before TypeORM listens on it; an error emitted in that gap
    // (the server's "terminating connection" in the same packet as "ready") meets only this one.
    const pool = (t.dataSource.driver as unknown as { master: PgPool }).master;
    const clients = await Promise.all([pool.connect(), pool.connect(), pool.connect()]);
    const error = new Error('terminating connection due to administrator command');
    for (const client of clients) {
      expect(() => client.emit('error', error)).not.toThrow();
      client.release(error);
    }
    expect(await t.dataSource.query('SELECT 1 AS one')).toEqual([{ one: 1 }]);
  });
});
