import { randomBytes } from 'node:crypto';
import { Client } from 'pg';

/** The server the PostgreSQL suites use, as chosen by the global setup. */
export function postgresAdminUrl(): string {
  const url = process.env.TEST_DATABASE_URL;
  if (!url) {
    throw new Error(
      'TEST_DATABASE_URL is not set: run the tests through jest (see test/support/global-setup.ts)',
    );
  }
  return url;
}

/** A fresh database for one suite, dropped by `drop()`. */
export interface TestDatabase {
  readonly url: string;
  drop(): Promise<void>;
}

function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

export async function createTestDatabase(): Promise<TestDatabase> {
  const admin = postgresAdminUrl();
  const name = `pw_test_${randomBytes(6).toString('hex')}`;
  const client = new Client({ connectionString: admin });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE ${name}`);
  } finally {
    await client.end();
  }
  return {
    url: withDatabase(admin, name),
    async drop() {
      const c = new Client({ connectionString: admin });
      await c.connect();
      try {
        await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await c.end();
      }
    },
  };
}
