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
const router = await createWebhooksRouter({ ...options, start: false });
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

// NOTE: the checker reads the built package; building it and one compiler run take a while.
jest.setTimeout(300_000);

describe('doc examples (npm run docs:examples)', () => {
  const tree = removedAfterSuite(docsTree);

  beforeAll(() => {
    ensureBuiltCli();
    compileDocScripts();
  });

  it('passes examples that compile against the package, fragments with their context', () => {
    const run = runDocScript('check-doc-examples', [
      '--root',
      tree({ 'README.md': README, 'docs/guides/bullmq.md': GUIDE }),
    ]);
    expect(run.stderr).toBe('');
    expect(run.stdout).toContain('4 example(s) checked: 0 with errors');
    expect(run.code).toBe(0);
  });

  it('fails on a wrong option, an unknown import and a fragment without context, at their lines', () => {
    const badGuide = GUIDE.replace("queueName: 'payments'", 'queueName: 42');
    const orphan = `# Notes\n\n${FENCE}ts\n// fragment\nrouter.start();\n${FENCE}\n`;
    const wrongImport = README.replace(
      "import { stripeEndpoint } from 'nestjs-payment-webhooks';",
      "import { stripeEndpoint } from 'nestjs-payment-webhooks/nowhere';",
    );
    const run = runDocScript('check-doc-examples', [
      '--root',
      tree({
        'README.md': wrongImport,
        'docs/guides/bullmq.md': badGuide,
        'docs/notes.md': orphan,
      }),
    ]);
    expect(run.code).toBe(1);
    expect(run.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(
        /^README\.md:4: TS2307 Cannot find module 'nestjs-payment-webhooks\/nowhere'/,
      ),
      expect.stringMatching(
        /^docs\/guides\/bullmq\.md:10: TS2322 Type 'number' is not assignable to type 'string'/,
      ),
      expect.stringMatching(/^docs\/notes\.md:5: TS2304 Cannot find name 'router'/),
    ]);
    expect(run.stdout).toContain('5 example(s) checked: 3 with errors, 3 error(s).');
  });

  it('checks a fragment with every context block above it, and reports a context error once', () => {
    const broken = README.replace(
      'declare const options: WebhooksRouterOptions;',
      'declare const options: WebhooksRouterOption;',
    );
    const run = runDocScript('check-doc-examples', ['--root', tree({ 'README.md': broken })]);
    expect(run.code).toBe(1);
    expect(run.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(/^README\.md:15: TS2\d+ Cannot find name 'WebhooksRouterOption'/),
    ]);
  });

  it('checks a fragment with the ts-context comment before its fence, unseen by readers', () => {
    const run = runDocScript('check-doc-examples', [
      '--root',
      tree({
        'docs/operations.md': HIDDEN,
        // NOTE: Prettier puts a blank line between an HTML comment and the fence after it.
        'docs/formatted.md': HIDDEN.replace('-->\n', '-->\n\n'),
      }),
    ]);
    expect(run.stderr).toBe('');
    expect(run.stdout).toContain('2 example(s) checked: 0 with errors');
    expect(run.code).toBe(0);
  });

  it('fails the same fragment without its ts-context, at the line of the page', () => {
    const bare = HIDDEN.replace(/<!-- ts-context\n[^]*?-->\n/, '');
    const run = runDocScript('check-doc-examples', [
      '--root',
      tree({ 'docs/operations.md': bare }),
    ]);
    expect(run.code).toBe(1);
    expect(run.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(/^docs\/operations\.md:9: TS2304 Cannot find name 'app'/),
    ]);
  });

  it('reports an error in a ts-context at its own line', () => {
    const broken = HIDDEN.replace('INestApplication;\n-->', 'INestApp;\n-->');
    const run = runDocScript('check-doc-examples', [
      '--root',
      tree({ 'docs/operations.md': broken }),
    ]);
    expect(run.code).toBe(1);
    expect(run.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(/^docs\/operations\.md:7: TS2\d+ Cannot find name 'INestApp'/),
    ]);
  });

  it('checks files of an app together, each app with its module type and its base app', () => {
    const run = runDocScript('check-doc-examples', ['--root', tree({ 'README.md': APP })]);
    expect(run.stderr).toBe('');
    // shop: app.module.ts and main.ts; shop-cjs: its test and shop's two files.
    expect(run.stdout).toContain('5 example(s) checked: 0 with errors');
    expect(run.code).toBe(0);
  });

  it('fails an app file at its line: an ES module import without its extension, a wrong type', () => {
    const broken = APP.replace('export const count: number', 'export const count: string').replace(
      "from './app.module.js';",
      "from './app.module';",
    );
    const run = runDocScript('check-doc-examples', ['--root', tree({ 'README.md': broken })]);
    expect(run.code).toBe(1);
    expect(run.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(/^README\.md:12: TS2307 Cannot find module '\.\/app\.module'/),
      expect.stringMatching(
        /^README\.md:22: TS2322 Type 'number' is not assignable to type 'string'/,
      ),
    ]);
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
