/**
 * Writes docs/configuration.md, the reference of every option the package takes, from the JSDoc
 * of its options interfaces: `WebhooksModuleOptions` and the extras of `forRoot()`, the Express
 * router's options, each endpoint factory's options and `bullmqTransport()`'s, each with the
 * nested options interfaces it reaches. Every option documents itself: an option without JSDoc
 * fails the run, listed with where it is declared.
 *
 *   npm run docs:options               writes docs/configuration.md
 *   npm run docs:options -- --check    fails when docs/configuration.md is not what it would write
 *   --root <dir>                       reads <dir>/lib and writes <dir>/docs (default: the cwd)
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { OptionRow, OptionsModel, OptionsTable } from './options-model';
import { argValue, codeSpan, firstDifference, tableCell } from './docs-support';

const OUTPUT = 'docs/configuration.md';
// NOTE: the options are read from the entries that export them, wherever they are declared.
const ROOT_ENTRY = 'lib/index.ts';
const EXPRESS_ENTRY = 'lib/express/index.ts';
const BULLMQ_ENTRY = 'lib/bullmq/index.ts';

/** Parents shared by many interfaces: one table each, named by the others. */
const STANDALONE = new Set(['WebhooksModuleOptions', 'BaseEndpointOptions']);
/** What a factory makes, not options a user writes: the `endpoints` factories document theirs. */
const NOT_OPTIONS = new Set(['WebhookEndpoint']);

interface Section {
  readonly title: string;
  readonly intro: string;
  readonly tables: readonly OptionsTable[];
}

function sections(model: OptionsModel): Section[] {
  const factories = model.exportedFunctions(ROOT_ENTRY, /^(?!define|tenant)\w+Endpoint$/);
  const root = (file: string, name: string) => model.tables(model.exportedInterface(file, name));
  return [
    {
      title: '`WebhooksModule.forRoot()` / `forRootAsync()`',
      intro: 'The options object; with `forRootAsync()`, what `useFactory` returns.',
      tables: root(ROOT_ENTRY, 'WebhooksModuleOptions'),
    },
    {
      title: 'Module extras',
      intro: 'Given to `forRoot()` / `forRootAsync()` beside the options: they shape the module.',
      tables: root(ROOT_ENTRY, 'WebhooksModuleExtras'),
    },
    {
      title: 'Express router: `createWebhooksRouter()`',
      intro: 'From `nestjs-payment-webhooks/express`.',
      tables: root(EXPRESS_ENTRY, 'WebhooksRouterOptions'),
    },
    {
      title: 'Every endpoint',
      intro: `Options every endpoint factory takes: ${factories.map((f) => codeSpan(`${f}()`)).join(', ')}.`,
      tables: root(ROOT_ENTRY, 'BaseEndpointOptions'),
    },
    ...factories.map((factory) => ({
      title: codeSpan(`${factory}()`),
      intro:
        'From `nestjs-payment-webhooks`; the option type from `nestjs-payment-webhooks/providers`.',
      tables: model.tables(model.parameterInterface(ROOT_ENTRY, factory)),
    })),
    {
      title: 'Tenant endpoints: `tenantEndpoint()`',
      intro:
        'From `nestjs-payment-webhooks` and `/express`: `tenantEndpoint(factory, options)` takes the ' +
        "options of [every endpoint](#baseendpointoptions), the factory's provider options as every " +
        "tenant's defaults, and these.",
      tables: root(ROOT_ENTRY, 'TenantResolution'),
    },
    {
      title: 'BullMQ transport: `bullmqTransport()`',
      intro: 'From `nestjs-payment-webhooks/bullmq`; given as `dispatch.transport`.',
      tables: model.tables(model.parameterInterface(BULLMQ_ENTRY, 'bullmqTransport')),
    },
  ];
}

function renderTable(table: OptionsTable): string[] {
  const lines = [`### ${codeSpan(table.name)}`, ''];
  const lead = [table.summary, table.at && `At ${codeSpan(table.at)}.`].filter(Boolean).join(' ');
  if (lead) lines.push(lead, '');
  for (const parent of table.alsoTakes) {
    lines.push(`Also takes every option of [${codeSpan(parent)}](#${parent.toLowerCase()}).`, '');
  }
  const first = table.rows.filter((row) => !row.advanced);
  const knobs = table.rows.filter((row) => row.advanced);
  if (first.length > 0) lines.push(...renderRows(first));
  if (knobs.length > 0) {
    const lead = first.length > 0 ? '**Advanced**' : '**Advanced** (every option here)';
    lines.push(`${lead}: tuning knobs whose defaults suit most apps.`, '', ...renderRows(knobs));
  }
  if (table.deprecated.length > 0) {
    lines.push('**Deprecated**, still read until 2.0 with a one-time `DeprecationWarning`:', '');
    for (const row of table.deprecated) lines.push(`- ${codeSpan(row.path)}: ${row.instead}`);
    lines.push('');
  }
  return lines;
}

function renderRows(rows: readonly OptionRow[]): string[] {
  const lines = ['| Option | Type | Default | Description |', '| --- | --- | --- | --- |'];
  for (const row of rows) {
    const cells = [codeSpan(row.path), codeSpan(row.type), row.default, row.description];
    lines.push(`| ${cells.map(tableCell).join(' | ')} |`);
  }
  lines.push('');
  return lines;
}

/** The whole page; the same source always gives the same text. */
export function renderReference(model: OptionsModel): string {
  const lines = [
    '# Configuration reference',
    '',
    '<!-- Generated by scripts/options-reference.ts from the JSDoc in lib/: edit the JSDoc, then run npm run docs:options. -->',
    '',
    'Every option the package takes, with its type as declared, its default and what it does.',
    'Paths are dotted from the options object the section names (`dispatch.retry.maxAttempts`).',
    "Each table's first rows are what a first setup gives; the **Advanced** rows below them are",
    'tuning knobs (`@advanced` in the JSDoc) whose defaults suit most apps, and **Deprecated** lists',
    'old names still read until 2.0 (see [Renamed options](migration.md#renamed-options)).',
    '',
  ];
  for (const section of sections(model)) {
    lines.push(`## ${section.title}`, '', section.intro, '');
    for (const table of section.tables) lines.push(...renderTable(table));
  }
  return `${lines.join('\n').trimEnd()}\n`;
}

function main(argv: readonly string[]): number {
  const root = path.resolve(argValue(argv, '--root') ?? process.cwd());
  const output = path.join(root, OUTPUT);
  // NOTE: a missing page is stale whatever the options say: no need to read them.
  if (argv.includes('--check') && !fs.existsSync(output)) {
    console.error(`${OUTPUT} is stale (missing): run npm run docs:options and commit the result.`);
    return 1;
  }
  const files = [ROOT_ENTRY, EXPRESS_ENTRY, BULLMQ_ENTRY];
  const model = new OptionsModel(root, files, STANDALONE, NOT_OPTIONS);
  const text = renderReference(model);
  if (model.undocumented.length > 0) {
    console.error(`${model.undocumented.length} option(s) without JSDoc; describe each in lib/:`);
    for (const { option, location } of model.undocumented)
      console.error(`  ${location}: ${option}`);
    return 1;
  }
  if (argv.includes('--check')) {
    const current = fs.readFileSync(output, 'utf8');
    if (current === text) return 0;
    const diff = firstDifference(current, text);
    console.error(`${OUTPUT} is stale: run npm run docs:options and commit the result.`);
    console.error(`  first difference at line ${diff.line}:`);
    console.error(`  - ${diff.found ?? '(end of file)'}`);
    console.error(`  + ${diff.expected ?? '(end of file)'}`);
    return 1;
  }
  fs.mkdirSync(path.dirname(output), { recursive: true });
  fs.writeFileSync(output, text);
  console.log(`wrote ${OUTPUT}`);
  return 0;
}

if (require.main === module) process.exitCode = main(process.argv.slice(2));
