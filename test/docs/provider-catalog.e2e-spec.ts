import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as ts from 'typescript';
import {
  compileDocScripts,
  libCopy,
  removedAfterSuite,
  ROOT,
  runDocScript,
} from '../support/doc-scripts';

const CATALOG = 'lib/providers/catalog';
const CATALOG_FILES = [
  'root-entry.ts',
  'express-entry.ts',
  'providers-entry.ts',
  'definitions.ts',
  'testing-entry.ts',
];

/** The smallest provider folder there is: a definition, its factory and options, and a signer. */
const ACME: Record<string, string> = {
  'acme.provider.ts': `import { defineProvider } from '../define-provider';
import { BaseEndpointOptions, WebhookEndpoint } from '../webhook-provider.interface';
import { signAcme } from './acme.signer';

/** Options of acmeEndpoint(). */
export type AcmeEndpointOptions = BaseEndpointOptions;

/** Acme: takes every delivery, and finds no events in it. */
export const acmeProvider = defineProvider<object>({
  kind: 'acme',
  name: 'Acme',
  types: {},
  signature: { verify: () => undefined, sign: () => signAcme() },
  normalize: () => [],
  cli: { secret: null, payload: 'the event', flags: [] },
  sample: { body: '{}' },
});

/** An Acme endpoint. */
export function acmeEndpoint(options: AcmeEndpointOptions): WebhookEndpoint {
  return acmeProvider.endpoint(options);
}
`,
  'acme.signer.ts': `/** Acme signs nothing: the headers of a delivery. */
export function signAcme(): Record<string, string> {
  return { 'content-type': 'application/json' };
}
`,
  'index.ts': `/** @entries root express */
export { acmeEndpoint } from './acme.provider';
/** @entries express providers */
export type { AcmeEndpointOptions } from './acme.provider';
export { acmeProvider } from './acme.provider';
`,
  'testing.ts': `export * from './acme.signer';
`,
};

function addFolder(root: string, name: string, files: Record<string, string>): void {
  mkdirSync(join(root, 'lib/providers', name), { recursive: true });
  for (const [file, text] of Object.entries(files)) {
    writeFileSync(join(root, 'lib/providers', name, file), text);
  }
}

/** A test kit for the folder: the catalog only needs the file to be there. */
function addKit(root: string, name: string): void {
  writeFileSync(join(root, 'test/providers', `${name}.kit.ts`), 'export const kit = {};\n');
}

function catalog(root: string): Record<string, string> {
  return Object.fromEntries(
    CATALOG_FILES.map((file) => [file, readFileSync(join(root, CATALOG, file), 'utf8')]),
  );
}

/**
 * The names an entry file of the copy exports, with the copy's catalog compiled by TypeScript:
 * the entry files, the catalog and the folders under `checked` have no error (the rest of lib/
 * is the typecheck's, and checking it all would take a few seconds more).
 */
function compiledExports(
  root: string,
  files: readonly string[],
  checked: readonly string[],
): Record<string, string[]> {
  const program = ts.createProgram(
    files.map((file) => join(root, file)),
    {
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.CommonJS,
      moduleResolution: ts.ModuleResolutionKind.Node10,
      strict: true,
      skipLibCheck: true,
      noEmit: true,
      types: ['node'],
    },
  );
  const inChecked = (file: ts.SourceFile) =>
    files.some((entry) => file.fileName === join(root, entry)) ||
    [CATALOG, ...checked].some((dir) => file.fileName.startsWith(`${join(root, dir)}/`));
  const errors = [
    ...program.getOptionsDiagnostics(),
    ...program.getGlobalDiagnostics(),
    ...program
      .getSourceFiles()
      .filter(inChecked)
      .flatMap((file) => [
        ...program.getSyntacticDiagnostics(file),
        ...program.getSemanticDiagnostics(file),
      ]),
  ].map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
  expect(errors).toEqual([]);
  const checker = program.getTypeChecker();
  return Object.fromEntries(
    files.map((file) => {
      const module = checker.getSymbolAtLocation(program.getSourceFile(join(root, file))!);
      return [file, module ? checker.getExportsOfModule(module).map((s) => s.name) : []];
    }),
  );
}

// NOTE: the second test builds a TypeScript program over lib/providers; on a busy machine that
// takes a while.
jest.setTimeout(180_000);

describe('provider catalog (npm run providers:catalog)', () => {
  const copy = removedAfterSuite(libCopy);

  beforeAll(() => compileDocScripts(), 120_000);

  it('lib/providers/catalog/ in the repository is what the generator writes', () => {
    const check = runDocScript('provider-catalog', ['--check', '--root', ROOT]);
    expect(check.stderr).toBe('');
    expect(check.code).toBe(0);
  });

  it('picks up a new provider folder: --check fails until the catalog is written again', () => {
    const root = copy();
    expect(runDocScript('provider-catalog', ['--check', '--root', root]).code).toBe(0);
    addFolder(root, 'acme', ACME);
    addKit(root, 'acme');

    const stale = runDocScript('provider-catalog', ['--check', '--root', root]);
    expect(stale.code).toBe(1);
    expect(stale.stderr).toContain(
      'lib/providers/catalog/root-entry.ts is stale: run npm run providers:catalog',
    );
    expect(stale.stderr).toContain("+ export { acmeEndpoint } from '../acme';");

    const write = runDocScript('provider-catalog', ['--root', root]);
    expect(write.code).toBe(0);
    expect(write.stdout).toContain('wrote lib/providers/catalog/ from 25 provider folders');
    const files = catalog(root);
    expect(files['root-entry.ts']).toContain("export { acmeEndpoint } from '../acme';");
    expect(files['express-entry.ts']).toContain("export { acmeEndpoint } from '../acme';");
    expect(files['express-entry.ts']).toContain(
      "export type { AcmeEndpointOptions } from '../acme';",
    );
    expect(files['providers-entry.ts']).toContain(
      "export type { AcmeEndpointOptions } from '../acme';",
    );
    expect(files['providers-entry.ts']).not.toContain('acmeEndpoint');
    expect(files['definitions.ts']).toContain(
      "import { acmeProvider } from '../acme/acme.provider';",
    );
    // Folders in name order: acme comes before adyen, first in the CLI's list.
    expect(files['definitions.ts']).toMatch(/= \[\n {2}acmeProvider,\n {2}adyenProvider,\n/);
    expect(files['testing-entry.ts']).toContain("export * from '../acme/testing';");
    const kits = readFileSync(join(root, 'test/providers/kits.ts'), 'utf8');
    expect(kits).toContain("import { kit as acme } from './acme.kit';");
    expect(kits).toMatch(/= \[\n {2}acme,\n {2}adyen,\n/);
    for (const file of CATALOG_FILES.filter((name) => name !== 'definitions.ts')) {
      expect(files[file]).not.toContain('acmeProvider');
    }

    expect(runDocScript('provider-catalog', ['--check', '--root', root])).toMatchObject({
      code: 0,
      stderr: '',
    });
    const exported = compiledExports(
      root,
      [
        'lib/providers/endpoints.ts',
        'lib/providers/index.ts',
        'lib/providers/catalog/testing-entry.ts',
      ],
      ['lib/providers/acme'],
    );
    expect(exported['lib/providers/endpoints.ts']).toEqual(
      expect.arrayContaining(['acmeEndpoint', 'stripeEndpoint']),
    );
    expect(exported['lib/providers/index.ts']).toContain('AcmeEndpointOptions');
    expect(exported['lib/providers/index.ts']).not.toContain('acmeEndpoint');
    expect(exported['lib/providers/catalog/testing-entry.ts']).toContain('signAcme');
  });

  it('names each folder that cannot be listed, and writes nothing', () => {
    const root = copy();
    const before = catalog(root);
    addFolder(root, 'acme', {
      ...ACME,
      'index.ts': `/** @entries root fastify */
export { acmeEndpoint } from './acme.provider';
export type { AcmeEndpointOptions } from './acme.provider';
`,
    });
    addFolder(root, 'empty', { 'empty.provider.ts': 'export {};\n' });

    const run = runDocScript('provider-catalog', ['--root', root]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('5 problem(s) in the provider folders; nothing written:');
    expect(run.stderr).toContain(
      'test/providers/acme.kit.ts is missing: every provider folder has a test kit',
    );
    expect(run.stderr).toContain(
      'lib/providers/acme/index.ts:2: @entries names root, express, providers (given: root fastify).',
    );
    expect(run.stderr).toContain(
      'lib/providers/acme/index.ts:3: tag AcmeEndpointOptions with the entries that export it',
    );
    expect(run.stderr).toContain('lib/providers/acme/index.ts exports no definition');
    expect(run.stderr).toContain('lib/providers/empty/index.ts is missing');
    expect(catalog(root)).toEqual(before);
  });
});
