import { ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import { DocApp, docApps } from '../../scripts/doc-apps';
import { post } from '../support/http';
import { ObserveCollector, startObserveCollector } from '../support/observe-collector';
import { createTestDatabase } from '../support/postgres';
import { freePort } from '../support/redis';
import { signedStripeEvent } from '../support/stripe-event';
import { eventually } from '../../lib/spec-support/eventually';
import { packedTarball, ROOT, run } from './fresh-app-support';

/**
 * The first hour of a new user, as CI can replay it: `nest new` makes the app with its defaults
 * (Nest 12: ES modules, Vitest and `@nestjs/observe`; Nest 11: CommonJS and Jest), the packed
 * package is installed with a plain `npm i` as README's Install section says, README's quick
 * start adds its two files and its changes to the scaffold's own files (applied as `git apply`
 * takes them, so nothing the scaffold made is removed), and the testing guide's files and changes
 * are added the same way (docs/testing.md). The app must build, start as `npm run start:prod`
 * starts it and answer a signed delivery, and the guide's test (a signed Stripe delivery twice:
 * one inbox row, one handler run, the order paid) must pass beside the scaffold's own, on SQLite
 * and on PostgreSQL.
 */

interface GeneratedStack {
  readonly name: string;
  /** The CLI that makes the app, as `npx` takes it. */
  readonly cli: string;
  /** What `nest new` takes besides the name. */
  readonly newFlags: readonly string[];
  /** The docs' app whose files go into it (scripts/doc-apps.ts). */
  readonly docApp: string;
  /** What README's Install section has the user install for this stack. */
  readonly install: readonly string[];
  /** Whether `nest new` adds `@nestjs/observe` (its module in `app.module.ts`, `instrument` in `main.ts`). */
  readonly observe: boolean;
}

const STACKS: readonly GeneratedStack[] = [
  {
    name: 'nest new on Nest 12 (ES modules, Vitest)',
    cli: '@nestjs/cli@12',
    newFlags: [],
    docApp: 'shop-vitest',
    install: ['@nestjs/typeorm@^12', 'typeorm@^1', 'better-sqlite3@^12', 'pg'],
    observe: true,
  },
  {
    name: 'nest new on Nest 11 (CommonJS, Jest)',
    cli: '@nestjs/cli@11',
    newFlags: [],
    docApp: 'shop-jest',
    install: ['@nestjs/typeorm@^11', 'typeorm@^0.3', 'better-sqlite3@^12', 'pg'],
    observe: false,
  },
];

let work: string;
let tarball: string;
let apps: Map<string, DocApp>;

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'pw-nest-new-'));
  tarball = packedTarball();
  apps = docApps(ROOT);
}, 300_000);

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

it('README installs what these apps install', () => {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  for (const stack of STACKS) {
    const typeorm = stack.install.filter((name) => /typeorm/.test(name)).join(' ');
    expect(readme).toContain(`npm i nestjs-payment-webhooks ${typeorm}`);
  }
  expect(readme).toContain('npm i better-sqlite3@^12');
  expect(readme).toContain('npm i pg ');
});

/** `npm run test:e2e` in the app: what Vitest or Jest printed (Jest reports on stderr). */
function e2e(dir: string, env: Record<string, string>): string {
  return run('sh', ['-c', 'npm run test:e2e 2>&1'], dir, {
    NO_COLOR: '1',
    FORCE_COLOR: '0',
    ...env,
  });
}

describe.each(STACKS)('$name', (stack) => {
  let dir: string;
  let collector: ObserveCollector;
  /** What the app's agent is pointed at (the scaffold reads `OBSERVE_ENDPOINT`, as Observe documents). */
  const observed = () => ({ OBSERVE_ENDPOINT: collector.url });

  beforeAll(async () => {
    collector = await startObserveCollector();
    const app = apps.get(stack.docApp);
    if (!app) throw new Error(`the docs build no app ${stack.docApp} (scripts/doc-apps.ts)`);
    const parent = mkdtempSync(join(work, 'new-'));
    run(
      'npx',
      [
        ...['-y', stack.cli, 'new', 'shop', '--package-manager', 'npm', '--skip-git'],
        ...['--skip-install', ...stack.newFlags],
      ],
      parent,
    );
    dir = join(parent, 'shop');
    // NOTE: one npm i installs what nest new would have, and what README's Install section adds.
    run('npm', ['i', tarball, ...stack.install], dir);
    for (const file of app.files.values()) {
      if (existsSync(join(dir, file.path))) {
        throw new Error(`${file.origin[0]}: the docs write ${file.path}, which nest new made`);
      }
      mkdirSync(dirname(join(dir, file.path)), { recursive: true });
      writeFileSync(join(dir, file.path), file.text);
    }
    for (const patch of app.patches.values()) {
      const file = join(parent, `${patch.path.replace(/\W/g, '-')}.diff`);
      writeFileSync(file, patch.text);
      run('git', ['apply', '--verbose', file], dir);
    }
  }, 600_000);

  afterAll(() => collector?.close());

  it('is the app the docs describe: its module type, its files, and what nest new made kept', () => {
    const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
      type?: string;
    };
    const app = apps.get(stack.docApp)!;
    expect(manifest.type ?? 'commonjs').toBe(app.type);
    expect([...app.files.keys()]).toEqual(
      expect.arrayContaining([
        'src/orders.ts',
        'src/payments.module.ts',
        'test/webhooks.e2e-spec.ts',
      ]),
    );
    expect([...app.patches.keys()]).toEqual(
      expect.arrayContaining(['src/app.module.ts', 'src/main.ts']),
    );
    expect(existsSync(join(dir, 'test', 'app.e2e-spec.ts'))).toBe(true);
    if (stack.observe) {
      expect(readFileSync(join(dir, 'src', 'app.module.ts'), 'utf8')).toContain(
        'ObserveModule.forRoot(',
      );
      expect(readFileSync(join(dir, 'src', 'main.ts'), 'utf8')).toContain(
        'instrument: ObserveInstrument',
      );
    }
  });

  it('builds with nest build', () => {
    run('npm', ['run', 'build'], dir);
    expect(
      existsSync(join(dir, 'dist', 'src', 'main.js')) || existsSync(join(dir, 'dist', 'main.js')),
    ).toBe(true);
  }, 300_000);

  it('starts as the docs say to start it, handles a signed delivery once, and names src/ lines in a failure', async () => {
    const main = existsSync(join(dir, 'dist', 'src', 'main.js'))
      ? 'dist/src/main.js'
      : 'dist/main.js';
    const port = await freePort();
    const sqliteFile = join(dir, 'started.sqlite');
    // NOTE: start:prod with source maps on, as docs/operations.md advises.
    const child: ChildProcess = spawn(process.execPath, ['--enable-source-maps', main], {
      cwd: dir,
      env: {
        ...process.env,
        ...observed(),
        PORT: String(port),
        STRIPE_WEBHOOK_SECRET: 'whsec_started_app',
        SQLITE_FILE: sqliteFile,
        NO_COLOR: '1',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    try {
      const url = `http://127.0.0.1:${port}`;
      await eventually(
        async () => (await fetch(url).catch(() => undefined))?.ok === true,
        60_000,
      ).catch(() => {
        throw new Error(`the app did not answer GET / within 60 s:\n${output}`);
      });
      const event = signedStripeEvent('whsec_started_app');
      for (let attempt = 1; attempt <= 2; attempt += 1) {
        const answer = await post(`${url}/webhooks/stripe`, event.body, event.headers);
        expect({ status: answer.status, output }).toMatchObject({ status: 200 });
      }
      await eventually(() => {
        const db = new Database(sqliteFile, { readonly: true, fileMustExist: true });
        try {
          const row = db
            .prepare('SELECT status, delivery_count FROM webhook_events WHERE event_id = ?')
            .get(event.id) as { status: string; delivery_count: number } | undefined;
          return row?.status === 'processed' && row.delivery_count === 2;
        } finally {
          db.close();
        }
      }, 20_000);
      if (stack.observe) {
        await eventually(
          () => collector.batches.some((batch) => batch.includes('"/webhooks/:endpoint"')),
          20_000,
        );
      }
      // The handler fails once the orders table is gone: events show names its source line.
      const db = new Database(sqliteFile);
      db.exec('DROP TABLE orders');
      db.close();
      const failing = signedStripeEvent('whsec_started_app');
      expect((await post(`${url}/webhooks/stripe`, failing.body, failing.headers)).status).toBe(
        200,
      );
      let shown = '';
      await eventually(() => {
        shown = run(
          'npx',
          [
            'nestjs-payment-webhooks',
            'events',
            'list',
            '--sqlite',
            sqliteFile,
            '--status',
            'retrying',
            '--json',
          ],
          dir,
        );
        return shown.includes(failing.id);
      }, 20_000);
      const [stored] = (JSON.parse(shown) as { id: string; eventId: string }[]).filter(
        (listed) => listed.eventId === failing.id,
      );
      const timeline = run(
        'npx',
        ['nestjs-payment-webhooks', 'events', 'show', stored.id, '--sqlite', sqliteFile],
        dir,
      );
      // NOTE: V8 names a method called on a Proxy `Proxy.<method>`: @nestjs/observe's instrument
      // puts one around every provider, the handlers' too.
      expect(timeline).toMatch(
        /at (async )?(OrderPayments|Proxy)\.paid \(src\/orders\.ts:\d+:\d+\)/,
      );
      expect(timeline).not.toMatch(
        /file:\/\/|dist\/src\/orders|\/node_modules\/nestjs-payment-webhooks\//,
      );
    } finally {
      child.kill('SIGTERM');
      await exited;
    }
    expect(output).not.toMatch(/produced no spans|WebhookConfigurationError|\bERROR\b/);
  }, 120_000);

  it('passes the testing guide’s e2e test, beside the scaffold’s own, on SQLite', () => {
    expect(e2e(dir, observed())).toMatch(/Tests:?\s+2 passed/);
  }, 300_000);

  it('passes the testing guide’s e2e test, beside the scaffold’s own, on PostgreSQL', async () => {
    const db = await createTestDatabase();
    try {
      expect(e2e(dir, { ...observed(), DATABASE_URL: db.url })).toMatch(/Tests:?\s+2 passed/);
    } finally {
      await db.drop();
    }
  }, 300_000);
});
