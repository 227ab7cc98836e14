import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPORT_FOLDER, reportedEntries, reportedValues } from '../../scripts/api-report-files';
import { ensureBuiltCli } from '../support/cli';

const ROOT = join(__dirname, '..', '..');

/**
 * Each entry's runtime names, as an app sees them in the built package, are those its committed
 * API report declares (api/<entry>.api.md): a new export fails here until `npm run api:report`
 * writes it into the report, which `npm run api:check` then holds the build to. Add one only
 * when an app needs it from that entry (see the comment at the top of lib/index.ts); the root
 * and `/express` also keep to the sizes below.
 */
const ENTRIES = reportedEntries(ROOT);

function pinnedNames(path: string): string[] {
  const entry = ENTRIES.find((candidate) => candidate.path === path)!;
  return reportedValues(readFileSync(join(ROOT, REPORT_FOLDER, entry.report), 'utf8'));
}

/**
 * The most runtime names an entry may have besides one endpoint factory per provider folder
 * (`stripeEndpoint`, …, which grow with the providers): the root and the Express entry stay small.
 */
// NOTE: /express grew by tenantEndpoint, which a platform on plain Express needs as much as one on Nest.
const MOST_NAMES: Record<string, number> = { '.': 38, './express': 9 };

/** A provider folder's endpoint factory: `<provider>Endpoint`, not `defineEndpoint` or `tenantEndpoint`. */
const isProviderFactory = (name: string) =>
  /^[a-z][A-Za-z]*Endpoint$/.test(name) && name !== 'defineEndpoint' && name !== 'tenantEndpoint';

/** Internals that an app once could import from the root and now cannot. */
const PRIVATE_NAMES = [
  'StripeWebhookProvider',
  'SberWebhookProvider',
  'WebhookEventEntity',
  'WebhookHandlerRunEntity',
  'CreateWebhooksTables1764400000000',
  'AddEventOutcomes1764500000000',
  'notificationsOf',
  'adyenSigningString',
  'redact',
];

interface PackageJson {
  main: string;
  types: string;
  files: string[];
  exports: Record<string, string | { types: string; default: string }>;
  typesVersions: { '*': Record<string, string[]> };
}

const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as PackageJson;

/** The package's subpath entries (`./testing`, …) with their files, from package.json. */
function subpaths(): Array<[string, { types: string; default: string }]> {
  return Object.entries(pkg.exports)
    .filter(([path]) => path !== '.' && path !== './package.json')
    .map(([path, target]) => {
      if (typeof target === 'string') throw new Error(`${path} has no types/default conditions`);
      return [path, target];
    });
}

function load(file: string): Record<string, unknown> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require(join(ROOT, file)) as Record<string, unknown>;
}

describe('public surface of the built package', () => {
  beforeAll(() => ensureBuiltCli(), 120_000);

  it.each(ENTRIES.map((entry) => entry.path))(
    'exports exactly the runtime names its API report declares from %s',
    (path) => {
      const file = path === '.' ? pkg.main : (pkg.exports[path] as { default: string }).default;
      const pinned = pinnedNames(path);
      expect(Object.keys(load(file)).sort()).toEqual(pinned);
      expect(pinned.filter((name) => !isProviderFactory(name)).length).toBeLessThanOrEqual(
        MOST_NAMES[path] ?? Infinity,
      );
    },
  );

  it('has a committed report for every entry package.json declares, and no other', () => {
    expect(ENTRIES.map((entry) => entry.path).sort()).toEqual(
      ['.', ...subpaths().map(([path]) => path)].sort(),
    );
    expect(readdirSync(join(ROOT, REPORT_FOLDER)).sort()).toEqual(
      ENTRIES.map((entry) => entry.report).sort(),
    );
    // NOTE: the reports are for review; the package ships dist/ and the docs, not them.
    expect(pkg.files).not.toContain(REPORT_FOLDER);
  });

  it("reads a report's runtime names: its values, not its types nor those it exports as types only", () => {
    const report = [
      'export class A {',
      '}',
      'export abstract class B {',
      'export function c(): void;',
      'export namespace c {',
      '    var kind: string;',
      '}',
      'export const D: unique symbol;',
      'export interface D {',
      'export const enum E {',
      'export enum F {',
      'export interface G {',
      'export type H = string;',
      '```',
      '',
      '## Exported as types only',
      '',
      'Declared above, but exported with `export type`: the entry has no value by these names.',
      '',
      '- `D`',
      '',
    ].join('\n');
    expect(reportedValues(report)).toEqual(['A', 'B', 'F', 'c']);
  });

  it('keeps internals out of the root entry', () => {
    const root = load(pkg.main);
    for (const name of PRIVATE_NAMES) expect(root).not.toHaveProperty(name);
  });

  it('declares the root entry and every subpath with files that exist', () => {
    expect(pkg.exports['.']).toEqual({ types: `./${pkg.types}`, default: `./${pkg.main}` });
    expect(existsSync(join(ROOT, pkg.types))).toBe(true);
    expect(existsSync(join(ROOT, pkg.main))).toBe(true);
    expect(subpaths().map(([path]) => path)).toEqual(
      expect.arrayContaining([
        './testing',
        './idempotency',
        './providers',
        './payments',
        './observability',
      ]),
    );
    for (const [path, target] of subpaths()) {
      expect({ path, types: existsSync(join(ROOT, target.types)) }).toEqual({ path, types: true });
      expect({ path, main: existsSync(join(ROOT, target.default)) }).toEqual({ path, main: true });
    }
  });

  it('points typesVersions at the same declarations as exports, for older TypeScript settings', () => {
    const declared = Object.fromEntries(
      subpaths().map(([path, target]) => [path.slice(2), [target.types.slice(2)]]),
    );
    expect(pkg.typesVersions['*']).toEqual(declared);
  });

  it('loads each subpath entry, and none but /express repeats a root value', () => {
    const root = load(pkg.main);
    // NOTE: `/express` is a whole entry of its own (endpoint factories, errors, migrations), so
    // a plain Express app never imports the root, which loads Nest; every value it shares with
    // the root must be the same value.
    for (const [path, target] of subpaths()) {
      const entry = load(target.default);
      if (path === './express') {
        const shared = Object.keys(entry).filter((name) => name in root);
        expect(shared).toEqual(expect.arrayContaining(['stripeEndpoint', 'webhooksMigrations']));
        expect(shared.filter((name) => entry[name] !== root[name])).toEqual([]);
        continue;
      }
      const shared = Object.keys(entry).filter((name) => name in root);
      expect({ path, shared }).toEqual({ path, shared: [] });
    }
  });

  it('loads the bullmq entry without any Nest package, with the transport and its job helpers', () => {
    // NOTE: a fresh process, so what this suite's own imports loaded does not count.
    const script =
      `const entry = require(${JSON.stringify(join(ROOT, 'dist', 'bullmq', 'index.js'))});` +
      "const loaded = Object.keys(require.cache).filter((path) => path.includes('@nestjs'));" +
      'process.stdout.write(JSON.stringify({ names: Object.keys(entry).sort(), loaded }));';
    const output = execFileSync(process.execPath, ['-e', script], { cwd: ROOT, encoding: 'utf8' });
    const { names, loaded } = JSON.parse(output) as { names: string[]; loaded: string[] };
    expect(loaded).toEqual([]);
    expect(names).toEqual(
      expect.arrayContaining([
        'BullmqWebhookTransport',
        'WEBHOOK_JOB_NAME',
        'bullmqTransport',
        'webhookJobId',
      ]),
    );
  });

  it('loads the testing entry without Nest, Express, Fastify or TypeORM', () => {
    // NOTE: a fresh process, as for bullmq; the YooKassa test API runs on node:http alone.
    const script =
      `const entry = require(${JSON.stringify(join(ROOT, 'dist', 'testing', 'index.js'))});` +
      "const names = ['@nestjs', 'express', 'fastify', 'typeorm'];" +
      'const loaded = Object.keys(require.cache).filter((path) =>' +
      " names.some((name) => path.includes('/node_modules/' + name + '/')));" +
      'process.stdout.write(JSON.stringify({ exported: Object.keys(entry), loaded }));';
    const output = execFileSync(process.execPath, ['-e', script], { cwd: ROOT, encoding: 'utf8' });
    const { exported, loaded } = JSON.parse(output) as { exported: string[]; loaded: string[] };
    expect(loaded).toEqual([]);
    expect(exported).toEqual(
      expect.arrayContaining(['signStripeDelivery', 'startYooKassaTestApi']),
    );
  });

  it('gives the providers and payments entries what the README shows imported from them', () => {
    const providers = load('dist/providers/index.js');
    for (const name of [
      'StripeStatusClient',
      'YooKassaStatusClient',
      'TBankStatusClient',
      'SberStatusClient',
      'createPayPalCertificateResolver',
      'YOOKASSA_IP_RANGES',
      'tbankToken',
      'PROVIDER_RETRY_HORIZONS',
    ]) {
      expect(providers).toHaveProperty(name);
    }
    const payments = load('dist/payments/index.js');
    for (const name of [
      'definePaymentStates',
      'paymentStateTarget',
      'transition',
      'applyPaymentEvent',
    ]) {
      expect(typeof payments[name]).toBe('function');
    }
  });
});
