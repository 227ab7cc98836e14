import { docApps } from '../../scripts/doc-apps';
import { ensureBuiltCli } from '../support/cli';
import {
  compileDocScripts,
  docsTree,
  removedAfterSuite,
  runDocScript,
} from '../support/doc-scripts';

const FENCE = '```';

const README = `# Shop

${FENCE}ts
import { stripeEndpoint } from 'nestjs-payment-webhooks';

export const stripe = stripeEndpoint({ name: 'stripe', secret: process.env.STRIPE_SECRET ?? '' });
${FENCE}

The worker options, shared by the fragments below:

${FENCE}typescript
import { createWebhooksRouter } from 'nestjs-payment-webhooks/express';
import type { WebhooksRouterOptions } from 'nestjs-payment-webhooks/express';

declare const options: WebhooksRouterOptions;
// context
${FENCE}

${FENCE}ts
// fragment
const router = await createWebhooksRouter({ ...options, autoStart: false });
router.register({ on: 'payment.succeeded', name: 'fulfil', handle: async () => {} });
${FENCE}
`;

const GUIDE = `# Guide

${FENCE}bash
npm i nestjs-payment-webhooks
${FENCE}

${FENCE}ts
import { bullmqTransport } from 'nestjs-payment-webhooks/bullmq';

export const transport = bullmqTransport({ connection: { port: 6379 }, queueName: 'payments' });
${FENCE}
`;

const HIDDEN = `# Operations

Replay from a script that has the app:

<!-- ts-context
import type { INestApplication } from '@nestjs/common';
declare const app: INestApplication;
-->
${FENCE}ts
// fragment
import { WebhookAdmin } from 'nestjs-payment-webhooks';

const admin = app.get(WebhookAdmin);
await admin.replay({ status: 'dead' });
${FENCE}
`;

/** An app in two files, and a CommonJS app on top of it with a test file of its own. */
const APP = `# Quick start

${FENCE}ts
// src/app.module.ts
import { stripeEndpoint } from 'nestjs-payment-webhooks';

export const endpoints = [stripeEndpoint({ name: 'stripe', secret: 'whsec_x' })];
${FENCE}

${FENCE}ts
// src/main.ts
import { endpoints } from './app.module.js';

console.log(endpoints.length);
${FENCE}

<!-- app shop-cjs commonjs base=shop -->
${FENCE}ts
// test/count.ts
import { endpoints } from '../src/app.module';

export const count: number = endpoints.length;
${FENCE}
`;

/** What one checker run said: its exit code, its summary and its error lines. */
interface CheckerRun {
  code: number | null;
  stdout: string;
  errors: string[];
}

function check(root: string): CheckerRun {
  const run = runDocScript('check-doc-examples', ['--root', root]);
  const errors = run.stderr.trim() === '' ? [] : run.stderr.trim().split('\n');
  return { code: run.code, stdout: run.stdout, errors };
}

/** The error lines of a run at one doc file, in the order printed. */
const errorsAt = (run: CheckerRun, file: string) =>
  run.errors.filter((line) => line.startsWith(`${file}:`));

/**
 * The cases that pass, each in files of its own, checked in one compiler run: the README and a
 * guide with context and fragment blocks (4 examples), a fragment with its ts-context comment
 * as written and as Prettier writes it (2), an app and a CommonJS app on top of it (5).
 */
const PASSING: Record<string, string> = {
  'README.md': README,
  'docs/guides/bullmq.md': GUIDE,
  'docs/operations.md': HIDDEN,
  // NOTE: Prettier puts a blank line between an HTML comment and the fence after it.
  'docs/formatted.md': HIDDEN.replace('-->\n', '-->\n\n'),
  'docs/quick-start.md': APP,
};

/** The cases that fail, each in files of its own, checked in one compiler run. */
const FAILING: Record<string, string> = {
  // A wrong option, an unknown import and a fragment without context.
  'README.md': README.replace(
    "import { stripeEndpoint } from 'nestjs-payment-webhooks';",
    "import { stripeEndpoint } from 'nestjs-payment-webhooks/nowhere';",
  ),
  'docs/guides/bullmq.md': GUIDE.replace("queueName: 'payments'", 'queueName: 42'),
  'docs/notes.md': `# Notes\n\n${FENCE}ts\n// fragment\nrouter.start();\n${FENCE}\n`,
  // An error in a context block, which its fragment is checked with.
  'docs/context.md': README.replace(
    'declare const options: WebhooksRouterOptions;',
    'declare const options: WebhooksRouterOption;',
  ),
  // A fragment without the ts-context it needs, and an error in a ts-context.
  'docs/operations.md': HIDDEN.replace(/<!-- ts-context\n[^]*?-->\n/, ''),
  'docs/hidden.md': HIDDEN.replace('INestApplication;\n-->', 'INestApp;\n-->'),
  // An ES module import without its extension and a wrong type, in an app's files.
  'docs/app.md': APP.replace('export const count: number', 'export const count: string').replace(
    "from './app.module.js';",
    "from './app.module';",
  ),
};

// NOTE: the checker reads the built package; building it and a compiler run take a while.
jest.setTimeout(300_000);

describe('doc examples (npm run docs:examples)', () => {
  const tree = removedAfterSuite(docsTree);
  let passing: CheckerRun;
  let failing: CheckerRun;

  beforeAll(() => {
    ensureBuiltCli();
    compileDocScripts();
    passing = check(tree(PASSING));
    failing = check(tree(FAILING));
  });

  it('passes examples that compile against the package, fragments with their context', () => {
    expect(errorsAt(passing, 'README.md')).toEqual([]);
    expect(errorsAt(passing, 'docs/guides/bullmq.md')).toEqual([]);
    expect(passing).toMatchObject({ code: 0, errors: [] });
    // 4 in README.md and the guide, 2 with a ts-context, 5 in the apps.
    expect(passing.stdout).toContain('11 example(s) checked: 0 with errors');
  });

  it('fails on a wrong option, an unknown import and a fragment without context, at their lines', () => {
    expect(failing.code).toBe(1);
    expect([
      ...errorsAt(failing, 'README.md'),
      ...errorsAt(failing, 'docs/guides/bullmq.md'),
      ...errorsAt(failing, 'docs/notes.md'),
    ]).toEqual([
      expect.stringMatching(
        /^README\.md:4: TS2307 Cannot find module 'nestjs-payment-webhooks\/nowhere'/,
      ),
      expect.stringMatching(
        /^docs\/guides\/bullmq\.md:10: TS2322 Type 'number' is not assignable to type 'string'/,
      ),
      expect.stringMatching(/^docs\/notes\.md:5: TS2304 Cannot find name 'router'/),
    ]);
  });

  it('checks a fragment with every context block above it, and reports a context error once', () => {
    expect(errorsAt(failing, 'docs/context.md')).toEqual([
      expect.stringMatching(
        /^docs\/context\.md:15: TS2\d+ Cannot find name 'WebhooksRouterOption'/,
      ),
    ]);
  });

  it('checks a fragment with the ts-context comment before its fence, unseen by readers', () => {
    expect(errorsAt(passing, 'docs/operations.md')).toEqual([]);
    expect(errorsAt(passing, 'docs/formatted.md')).toEqual([]);
    expect(passing).toMatchObject({ code: 0, errors: [] });
    expect(passing.stdout).toContain('11 example(s) checked: 0 with errors');
  });

  it('fails the same fragment without its ts-context, at the line of the page', () => {
    expect(errorsAt(failing, 'docs/operations.md')).toEqual([
      expect.stringMatching(/^docs\/operations\.md:9: TS2304 Cannot find name 'app'/),
    ]);
  });

  it('reports an error in a ts-context at its own line', () => {
    expect(errorsAt(failing, 'docs/hidden.md')).toEqual([
      expect.stringMatching(/^docs\/hidden\.md:7: TS2\d+ Cannot find name 'INestApp'/),
    ]);
  });

  it('checks files of an app together, each app with its module type and its base app', () => {
    expect(errorsAt(passing, 'docs/quick-start.md')).toEqual([]);
    expect(passing).toMatchObject({ code: 0, errors: [] });
    // 5 of the 11 are the apps' files: shop's two, and shop-cjs's test with shop's two.
    expect(passing.stdout).toContain('11 example(s) checked: 0 with errors');
  });

  it('fails an app file at its line: an ES module import without its extension, a wrong type', () => {
    expect(errorsAt(failing, 'docs/app.md')).toEqual([
      expect.stringMatching(/^docs\/app\.md:12: TS2307 Cannot find module '\.\/app\.module'/),
      expect.stringMatching(
        /^docs\/app\.md:22: TS2322 Type 'number' is not assignable to type 'string'/,
      ),
    ]);
  });

  it('reports each error once, at the file of its case, and counts what it checked', () => {
    const files = Object.keys(FAILING);
    expect(
      failing.errors.filter((line) => !files.some((file) => line.startsWith(`${file}:`))),
    ).toEqual([]);
    // 5 with the wrong option and import, 3 with a broken context, 1 and 1 with ts-contexts,
    // 5 in the apps; one error each but the context's, which fails its fragment too.
    expect(failing.stdout).toContain('15 example(s) checked: 9 with errors, 8 error(s).');
  });

  it('refuses an app on a base no doc builds, and a file an app writes twice', () => {
    const orphan = APP.replace('base=shop', 'base=nowhere');
    const twice = APP.replace('// src/main.ts', '// src/app.module.ts');
    const runs = [orphan, twice].map((readme) =>
      runDocScript('check-doc-examples', ['--root', tree({ 'README.md': readme })]),
    );
    expect(runs.map((run) => run.code)).not.toContain(0);
    expect(runs[0].stderr).toContain('app shop-cjs is based on app nowhere, which no doc has');
    expect(runs[1].stderr).toContain('README.md:11: app shop already has a src/app.module.ts');
  });
});

/** README's changes to the scaffold, and a guide's app that changes one more file and one of them. */
const PATCHED_README = `# Shop

<!-- patch -->
${FENCE}diff
--- a/src/app.module.ts
+++ b/src/app.module.ts
@@ -1,2 +1,3 @@
 import { Module } from '@nestjs/common';
+import { PaymentsModule } from './payments.module.js';
--- a/src/main.ts
+++ b/src/main.ts
@@ -1,1 +1,1 @@
-const app = await NestFactory.create(AppModule);
+const app = await NestFactory.create(AppModule, { rawBody: true });
${FENCE}
`;

const PATCHED_GUIDE = `# Testing

<!-- app shop-jest commonjs base=shop -->
<!-- patch -->
${FENCE}diff
--- a/src/main.ts
+++ b/src/main.ts
@@ -1,1 +1,1 @@
-const app = await NestFactory.create(AppModule);
+const app = await NestFactory.create(AppModule, { rawBody: true, bufferLogs: true });
--- a/test/jest-e2e.json
+++ b/test/jest-e2e.json
@@ -1,1 +1,1 @@
-{}
+{ "maxWorkers": 1 }
${FENCE}
`;

describe("the apps' changes to the scaffold (<!-- patch -->)", () => {
  const tree = removedAfterSuite(docsTree);

  it("splits a diff by file, and gives an app its base's changes to the files it does not change", () => {
    const apps = docApps(tree({ 'README.md': PATCHED_README, 'docs/testing.md': PATCHED_GUIDE }));

    expect([...apps.get('shop')!.patches.keys()]).toEqual(['src/app.module.ts', 'src/main.ts']);
    const jest = apps.get('shop-jest')!.patches;
    expect([...jest.keys()].sort()).toEqual([
      'src/app.module.ts',
      'src/main.ts',
      'test/jest-e2e.json',
    ]);
    expect(jest.get('src/main.ts')!.text).toContain('bufferLogs');
    expect(jest.get('src/main.ts')!.origin).toBe('docs/testing.md:6');
    expect(jest.get('src/app.module.ts')!.origin).toBe('README.md:5');
    expect(jest.get('test/jest-e2e.json')!.text).toMatch(/^--- a\/test\/jest-e2e\.json\n/);
  });

  it('refuses a file an app changes twice, naming where', () => {
    const twice = PATCHED_README.replace(
      '--- a/src/main.ts\n+++ b/src/main.ts',
      '--- a/src/app.module.ts\n+++ b/src/app.module.ts',
    );

    expect(() => docApps(tree({ 'README.md': twice }))).toThrow(
      'README.md:10: app shop already changes src/app.module.ts',
    );
  });
});
