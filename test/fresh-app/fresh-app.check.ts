import { ChildProcess, spawn } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { Client } from 'pg';
import { post } from '../support/http';
import { createTestDatabase, TestDatabase } from '../support/postgres';
import { docBlock } from '../support/readme';
import { dropRedisPrefix, redisPrefix, redisUrl } from '../support/redis';
import { SignedStripeEvent, signedStripeEvent } from '../support/stripe-event';
import { packedTarball, run } from './fresh-app-support';

/**
 * What a user does: `npm pack` the package, then in a new directory outside the repository a new
 * app on each supported stack, installed with a plain `npm i` (no flags), built with `tsc` and
 * started on SQLite and on PostgreSQL with `synchronize: true`. A signed Stripe delivery, sent
 * twice, must answer 200 twice and leave one inbox row and one shipment; after a restart on the
 * same database (rows present, `synchronize` again) the same holds. The plain Express app is the
 * one the "Plain Express" section of docs/receiving.md shows; it also survives a restart with a
 * pending event.
 */

const SECRET = 'whsec_fresh_app_secret';

interface Stack {
  readonly name: string;
  /** What the user installs, as they would type it. */
  readonly packages: readonly string[];
  readonly devPackages: readonly string[];
}

const STACKS: readonly Stack[] = [
  {
    name: 'Nest 12 + TypeORM 1',
    packages: [
      '@nestjs/common@^12',
      '@nestjs/core@^12',
      '@nestjs/platform-express@^12',
      '@nestjs/typeorm@^12',
      'typeorm@^1',
      'reflect-metadata',
      'rxjs',
      'better-sqlite3@^12',
      'pg',
      'bullmq@^6',
      'ioredis@^5',
    ],
    devPackages: ['typescript@^6', '@types/node@^20'],
  },
  {
    name: 'Nest 11 + TypeORM 0.3',
    packages: [
      '@nestjs/common@^11',
      '@nestjs/core@^11',
      '@nestjs/platform-express@^11',
      '@nestjs/typeorm@^11',
      'typeorm@^0.3',
      'reflect-metadata',
      'rxjs',
      'better-sqlite3@^12',
      'pg',
      'bullmq@^5',
    ],
    devPackages: ['typescript@^5.7', '@types/node@^20'],
  },
];

/** A running `node dist/main.js`, with its output kept for the failure message. */
interface RunningApp {
  readonly url: string;
  stop(): Promise<void>;
}

async function stopped<T>(app: RunningApp, work: (app: RunningApp) => Promise<T>): Promise<T> {
  try {
    return await work(app);
  } finally {
    await app.stop();
  }
}

function startApp(dir: string, env: Record<string, string>): Promise<RunningApp> {
  const child: ChildProcess = spawn(process.execPath, ['dist/main.js'], {
    cwd: dir,
    env: { ...process.env, PORT: '0', STRIPE_WEBHOOK_SECRET: SECRET, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const stopped = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => fail('did not start within 60 s'), 60_000);
    function fail(reason: string): void {
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(new Error(`the app ${reason}:\n${output}`));
    }
    const exited = (code: number | null) => fail(`exited with ${code}`);
    child.once('exit', exited);
    const read = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening on (http:\/\/\S+)/.exec(output);
      if (!match) return;
      clearTimeout(timer);
      child.off('exit', exited);
      resolve({
        url: match[1].replace('[::1]', '127.0.0.1'),
        async stop() {
          child.kill('SIGTERM');
          await stopped;
        },
      });
    };
    child.stdout!.on('data', read);
    child.stderr!.on('data', read);
  });
}

/** Counts the inbox rows and the shipments, straight from the database. */
type Counter = () => Promise<{ events: number; shipments: number }>;

function sqliteCounter(file: string): Counter {
  return async () => {
    const db = new Database(file, { readonly: true, fileMustExist: true });
    try {
      const count = (table: string) =>
        (db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
      return { events: count('webhook_events'), shipments: count('shipments') };
    } finally {
      db.close();
    }
  };
}

function postgresCounter(url: string): Counter {
  return async () => {
    const client = new Client({ connectionString: url });
    await client.connect();
    try {
      const count = async (table: string) =>
        Number((await client.query(`SELECT count(*) AS n FROM ${table}`)).rows[0].n);
      return { events: await count('webhook_events'), shipments: await count('shipments') };
    } finally {
      await client.end();
    }
  };
}

async function settled(count: Counter, expected: { events: number; shipments: number }) {
  const deadline = Date.now() + 10_000;
  let last = await count();
  while (
    (last.events !== expected.events || last.shipments !== expected.shipments) &&
    Date.now() < deadline
  ) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    last = await count();
  }
  return last;
}

function signedDelivery(): SignedStripeEvent {
  return signedStripeEvent(SECRET, { amount: 2500, currency: 'eur' });
}

let work: string;
let tarball: string;

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'pw-fresh-app-'));
  tarball = packedTarball();
}, 300_000);

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

/** A fresh PostgreSQL database, and a Redis prefix of its own for the BullMQ transport. */
async function postgresOverBullmq(): Promise<{
  env: Record<string, string>;
  count: Counter;
  drop(): Promise<void>;
}> {
  const db: TestDatabase = await createTestDatabase();
  const prefix = redisPrefix();
  return {
    env: { DATABASE_URL: db.url, REDIS_URL: redisUrl(), REDIS_PREFIX: prefix },
    count: postgresCounter(db.url),
    drop: async () => {
      await db.drop();
      if ((await dropRedisPrefix(redisUrl(), prefix)) === 0) {
        throw new Error(
          `the app left no BullMQ key under ${prefix}: its handlers did not run on BullMQ`,
        );
      }
    },
  };
}

/** A fresh database of each kind for an app in `dir()`, with its counter and clean-up. */
function databasesIn(
  dir: () => string,
): [
  string,
  () => Promise<{ env: Record<string, string>; count: Counter; drop(): Promise<void> }>,
][] {
  return [
    [
      'SQLite',
      async () => {
        const file = join(dir(), `shop-${Date.now()}.sqlite`);
        return {
          env: { SQLITE_FILE: file },
          count: sqliteCounter(file),
          drop: async () => undefined,
        };
      },
    ],
    [
      'PostgreSQL',
      async () => {
        const db: TestDatabase = await createTestDatabase();
        return {
          env: { DATABASE_URL: db.url },
          count: postgresCounter(db.url),
          drop: () => db.drop(),
        };
      },
    ],
  ];
}

describe.each(STACKS)('a new app on $name', (stack) => {
  let dir: string;

  beforeAll(() => {
    dir = mkdtempSync(join(work, 'app-'));
    cpSync(join(__dirname, 'app'), dir, { recursive: true });
    run('npm', ['init', '-y'], dir);
    run('npm', ['i', ...stack.packages, tarball], dir);
    run('npm', ['i', '-D', ...stack.devPackages], dir);
    run(join(dir, 'node_modules', '.bin', 'tsc'), ['-p', 'tsconfig.json'], dir);
  }, 600_000);

  const databases: ReturnType<typeof databasesIn> = [
    ...databasesIn(() => dir),
    ['PostgreSQL, with the handlers on BullMQ', postgresOverBullmq],
  ];

  it.each(databases)(
    'answers a signed Stripe delivery twice with 200 and acts once, on %s, across a restart',
    async (_, database) => {
      const { env, count, drop } = await database();
      try {
        const delivery = signedDelivery();
        const first = await startApp(dir, env);
        const answers = [];
        try {
          for (let i = 0; i < 2; i += 1) {
            answers.push(
              (await post(`${first.url}/webhooks/stripe`, delivery.body, delivery.headers)).status,
            );
          }
          expect(await settled(count, { events: 1, shipments: 1 })).toEqual({
            events: 1,
            shipments: 1,
          });
        } finally {
          await first.stop();
        }

        const second = await startApp(dir, env);
        try {
          answers.push(
            (await post(`${second.url}/webhooks/stripe`, delivery.body, delivery.headers)).status,
          );
          await new Promise((resolve) => setTimeout(resolve, 500));
          expect(await count()).toEqual({ events: 1, shipments: 1 });
        } finally {
          await second.stop();
        }
        expect(answers).toEqual([200, 200, 200]);
      } finally {
        await drop();
      }
    },
    120_000,
  );
});

describe('a new plain Express app built from the receiving guide', () => {
  const template = join(__dirname, 'express-app');
  let dir: string;

  it('is the code the "Plain Express" section of docs/receiving.md shows', () => {
    const example = docBlock('docs/receiving.md', 'Plain Express', 'ts');
    if (example === undefined) {
      throw new Error('docs/receiving.md has no "Plain Express" section with a ```ts block');
    }
    expect(readFileSync(join(template, 'src', 'main.ts'), 'utf8').trim()).toBe(example.trim());
  });

  it('is built with the tsconfig the "Plain Express" section of docs/receiving.md shows', () => {
    const tsconfig = docBlock('docs/receiving.md', 'Plain Express', 'json');
    if (tsconfig === undefined) {
      throw new Error('docs/receiving.md has no "Plain Express" section with a ```json block');
    }
    expect(readFileSync(join(template, 'tsconfig.json'), 'utf8').trim()).toBe(tsconfig.trim());
  });

  describe('installed with npm i', () => {
    beforeAll(() => {
      dir = mkdtempSync(join(work, 'express-app-'));
      cpSync(template, dir, { recursive: true });
      run('npm', ['init', '-y'], dir);
      run(
        'npm',
        ['i', 'express@^5', 'typeorm@^1', 'reflect-metadata', 'better-sqlite3@^12', 'pg', tarball],
        dir,
      );
      run('npm', ['i', '-D', 'typescript@^6', '@types/node@^20', '@types/express@^5'], dir);
      run(join(dir, 'node_modules', '.bin', 'tsc'), ['-p', 'tsconfig.json'], dir);
    }, 600_000);

    it('installs no Nest package: the Nest peers are optional', () => {
      expect(existsSync(join(dir, 'node_modules', '@nestjs'))).toBe(false);
    });

    it.each(databasesIn(() => dir))(
      'acts once for two deliveries, and once for an event left pending across a restart, on %s',
      async (_, database) => {
        const { env, count, drop } = await database();
        try {
          const paid = signedDelivery();
          const pending = signedDelivery();
          const deliver = (app: RunningApp, delivery: typeof paid) =>
            post(`${app.url}/webhooks/stripe`, delivery.body, delivery.headers);
          await stopped(await startApp(dir, env), async (app) => {
            expect([(await deliver(app, paid)).status, (await deliver(app, paid)).status]).toEqual([
              200, 200,
            ]);
            expect(await settled(count, { events: 1, shipments: 1 })).toEqual({
              events: 1,
              shipments: 1,
            });
          });
          // An instance that only receives: the event is stored and answered, not handled.
          await stopped(await startApp(dir, { ...env, WEBHOOK_WORKER: 'off' }), async (app) => {
            expect((await deliver(app, pending)).status).toBe(200);
            await new Promise((resolve) => setTimeout(resolve, 500));
            expect(await count()).toEqual({ events: 2, shipments: 1 });
          });
          await stopped(await startApp(dir, env), async (app) => {
            expect(await settled(count, { events: 2, shipments: 2 })).toEqual({
              events: 2,
              shipments: 2,
            });
            expect((await deliver(app, pending)).status).toBe(200);
            await new Promise((resolve) => setTimeout(resolve, 500));
            expect(await count()).toEqual({ events: 2, shipments: 2 });
          });
        } finally {
          await drop();
        }
      },
      120_000,
    );
  });
});
