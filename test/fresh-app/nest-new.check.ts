import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { DocApp, docApps } from '../../scripts/doc-apps';
import { createTestDatabase } from '../support/postgres';
import { packedTarball, ROOT, run } from './fresh-app-support';

/**
 * The first hour of a new user, as CI can replay it: `nest new` makes the app (Nest 12: ES
 * modules and Vitest; Nest 11: CommonJS and Jest), the packed package is installed with a plain
 * `npm i` as README's Install section says, README's quick start becomes `src/app.module.ts` and
 * `src/main.ts`, and the testing guide's files (docs/testing.md) are added unchanged. The app
 * must build, and the guide's test (a signed Stripe delivery twice: one inbox row, one handler
 * run, the order paid) must pass on SQLite and on PostgreSQL.
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
}

const STACKS: readonly GeneratedStack[] = [
  {
    name: 'nest new on Nest 12 (ES modules, Vitest)',
    cli: '@nestjs/cli@12',
    newFlags: ['--no-observe'],
    docApp: 'shop-vitest',
    install: ['@nestjs/typeorm@^12', 'typeorm@^1', 'better-sqlite3@^12', 'pg'],
  },
  {
    name: 'nest new on Nest 11 (CommonJS, Jest)',
    cli: '@nestjs/cli@11',
    newFlags: [],
    docApp: 'shop-jest',
    install: ['@nestjs/typeorm@^11', 'typeorm@^0.3', 'better-sqlite3@^12', 'pg'],
  },
];

/** The generated test README's quick start replaces: it expects the starter's `GET /`. */
const STARTER_E2E_TEST = 'test/app.e2e-spec.ts';

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

  beforeAll(() => {
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
    rmSync(join(dir, STARTER_E2E_TEST));
    for (const file of app.files.values()) {
      mkdirSync(dirname(join(dir, file.path)), { recursive: true });
      writeFileSync(join(dir, file.path), file.text);
    }
  }, 600_000);

  it('is the app the docs describe: its module type, and every file they write', () => {
    const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
      type?: string;
    };
    expect(manifest.type ?? 'commonjs').toBe(apps.get(stack.docApp)!.type);
    expect([...apps.get(stack.docApp)!.files.keys()].sort()).toEqual(
      expect.arrayContaining(['src/app.module.ts', 'src/main.ts', 'test/webhooks.e2e-spec.ts']),
    );
  });

  it('builds with nest build', () => {
    run('npm', ['run', 'build'], dir);
    expect(
      existsSync(join(dir, 'dist', 'src', 'main.js')) || existsSync(join(dir, 'dist', 'main.js')),
    ).toBe(true);
  }, 300_000);

  it('passes the testing guide’s e2e test on SQLite', () => {
    expect(e2e(dir, {})).toMatch(/Tests:?\s+1 passed/);
  }, 300_000);

  it('passes the testing guide’s e2e test on PostgreSQL', async () => {
    const db = await createTestDatabase();
    try {
      expect(e2e(dir, { DATABASE_URL: db.url })).toMatch(/Tests:?\s+1 passed/);
    } finally {
      await db.drop();
    }
  }, 300_000);
});
