/**
 * Type-checks every `ts` / `typescript` fenced block of README.md, docs/**.md, bench/README.md
 * and the sample apps' READMEs against the built package (dist/: run `npm run build` first), in
 * one compiler run: strict, decorators with metadata, module nodenext, in a project with
 * `"type": "module"` whose `nestjs-payment-webhooks` is this repository.
 *
 * How blocks are read (docs/contributing-docs.md):
 * - Each block is a module of its own, checked as written: it imports what it uses.
 * - A block whose last line is `// context` is also context: it is checked on its own, and
 *   every later `// fragment` block of the same file is checked with it.
 * - A block whose first line is `// fragment` is checked after the file's preceding context
 *   blocks, concatenated in order; it may use what they declare and import. Without a preceding
 *   context block it is checked alone.
 * - An HTML comment right before a block's fence (blank lines between them allowed), with
 *   `<!-- ts-context` on its first line and `-->` on its last, holds code readers do not see:
 *   the surroundings a fragment assumes (`declare const app: INestApplication;`). Its code is
 *   put before the block's (after the preceding context blocks) when the block is checked, and
 *   is kept with the block when the block is context.
 *
 * - A block that is a file of an app (`// src/app.module.ts` on its first line; see
 *   scripts/doc-apps.ts) is checked in that app's own directory, with the app's other files and
 *   a package.json of the app's module type, so its relative imports resolve.
 *
 * Errors read `<doc file>:<line>: TS<code> <message>`, the line being the block's own, or the
 * ts-context comment's.
 *
 *   npm run docs:examples             checks the docs
 *   --root <dir>                      reads the Markdown from <dir> (default: the cwd)
 *   --keep                            keeps the generated project under .tmp/ to run tsc in it
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as ts from 'typescript';
import { appFilePath, DocApp, docApps } from './doc-apps';
import { argValue, docFiles, FencedBlock, splitFences } from './docs-support';

const PACKAGE_ROOT = path.resolve(__dirname, '..', '..');
const CONTEXT = /^\s*\/\/\s*context\s*$/;
const FRAGMENT = /^\s*\/\/\s*fragment\b/;
const HIDDEN_OPEN = /^\s*<!--\s*ts-context\s*$/;
const HIDDEN_CLOSE = /^\s*-->\s*$/;

const COMPILER_OPTIONS = {
  strict: true,
  experimentalDecorators: true,
  emitDecoratorMetadata: true,
  skipLibCheck: true,
  module: 'nodenext',
  moduleResolution: 'nodenext',
  moduleDetection: 'force',
  target: 'ES2022',
  // NOTE: jest for the globals a Jest test file uses as `nest new` sets it up (@types/jest).
  types: ['node', 'jest'],
  noEmit: true,
};

/** A generated file: its text and, per line, where that line is in the docs. */
interface ExampleFile {
  readonly name: string;
  readonly text: string;
  readonly origin: readonly string[];
}

function isTypeScript(block: FencedBlock): boolean {
  return block.info === 'ts' || block.info === 'typescript';
}

function lastLine(block: FencedBlock): string {
  return [...block.lines].reverse().find((line) => line.trim() !== '') ?? '';
}

/**
 * The code of the `<!-- ts-context … -->` comment that ends just before the block's fence,
 * with where each of its lines is in the docs; nothing when there is none.
 */
function hiddenContext(
  docFile: string,
  lines: readonly string[],
  block: FencedBlock,
): { lines: string[]; origin: string[] } {
  // NOTE: block.line is the first line of code (1-based), so the fence is at index block.line - 2.
  let close = block.line - 3;
  while (close >= 0 && lines[close].trim() === '') close--;
  if (close < 0 || !HIDDEN_CLOSE.test(lines[close])) return { lines: [], origin: [] };
  let open = close - 1;
  while (open >= 0 && !HIDDEN_OPEN.test(lines[open]) && !lines[open].includes('-->')) open--;
  if (open < 0 || !HIDDEN_OPEN.test(lines[open])) return { lines: [], origin: [] };
  const code = lines.slice(open + 1, close);
  return { lines: code, origin: code.map((_, offset) => `${docFile}:${open + 2 + offset}`) };
}

/** The files one Markdown file's blocks become. */
export function exampleFiles(docFile: string, markdown: string): ExampleFile[] {
  const files: ExampleFile[] = [];
  const context: { lines: string[]; origin: string[] } = { lines: [], origin: [] };
  const markdownLines = markdown.split('\n');
  const blocks = splitFences(markdown).blocks.filter(isTypeScript);
  for (const block of blocks.filter((b) => appFilePath(markdownLines, b) === undefined)) {
    const hidden = hiddenContext(docFile, markdownLines, block);
    const lines = [...hidden.lines, ...block.lines];
    const origin = [
      ...hidden.origin,
      ...block.lines.map((_, offset) => `${docFile}:${block.line + offset}`),
    ];
    const fragment = FRAGMENT.test(block.lines[0] ?? '');
    files.push({
      name: `${docFile.replace(/\.md$/, '').replace(/[^A-Za-z0-9]+/g, '_')}-L${block.line}.ts`,
      text: [...(fragment ? context.lines : []), ...lines].join('\n') + '\n',
      origin: [...(fragment ? context.origin : []), ...origin],
    });
    if (CONTEXT.test(lastLine(block))) {
      context.lines.push(...lines);
      context.origin.push(...origin);
    }
  }
  return files;
}

/** The TypeScript files of the docs' apps, each under `apps/<app>/`. */
export function appExampleFiles(apps: ReadonlyMap<string, DocApp>): ExampleFile[] {
  return [...apps.values()].flatMap((app) =>
    [...app.files.values()]
      .filter((file) => file.path.endsWith('.ts'))
      .map((file) => ({ name: `apps/${app.name}/${file.path}`, ...file })),
  );
}

/** Writes the project: the examples, a package.json and the package itself in node_modules. */
function writeProject(
  dir: string,
  files: readonly ExampleFile[],
  apps: ReadonlyMap<string, DocApp>,
): void {
  fs.mkdirSync(path.join(dir, 'node_modules'), { recursive: true });
  fs.symlinkSync(PACKAGE_ROOT, path.join(dir, 'node_modules', 'nestjs-payment-webhooks'), 'dir');
  fs.writeFileSync(path.join(dir, 'package.json'), '{ "private": true, "type": "module" }\n');
  // NOTE: the repository's types/ stands in for @types/express, which an app installs itself.
  const shims = fs
    .readdirSync(path.join(PACKAGE_ROOT, 'types'))
    .map((name) => `../../types/${name}`);
  const names = [...files.map((file) => file.name), ...shims];
  const tsconfig = { compilerOptions: COMPILER_OPTIONS, files: names };
  fs.writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify(tsconfig, null, 2) + '\n');
  for (const app of apps.values()) {
    fs.mkdirSync(path.join(dir, 'apps', app.name), { recursive: true });
    const packageJson = JSON.stringify({ private: true, type: app.type });
    fs.writeFileSync(path.join(dir, 'apps', app.name, 'package.json'), packageJson + '\n');
  }
  for (const file of files) {
    fs.mkdirSync(path.dirname(path.join(dir, file.name)), { recursive: true });
    fs.writeFileSync(path.join(dir, file.name), file.text);
  }
}

/** Every compiler error, each once, at its place in the docs; and the examples that have one. */
function typeCheck(
  dir: string,
  files: readonly ExampleFile[],
): { errors: string[]; failing: Set<string> } {
  const config = ts.getParsedCommandLineOfConfigFile(
    path.join(dir, 'tsconfig.json'),
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (d) => {
        throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n'));
      },
    },
  );
  if (!config) throw new Error('the examples project has no usable tsconfig.json');
  const program = ts.createProgram(config.fileNames, config.options);
  const byPath = new Map(files.map((file) => [path.join(dir, file.name), file]));
  const errors = new Set<string>();
  const failing = new Set<string>();
  for (const diagnostic of ts.getPreEmitDiagnostics(program)) {
    const message = `TS${diagnostic.code} ${ts.flattenDiagnosticMessageText(diagnostic.messageText, ' ')}`;
    const source = diagnostic.file;
    const file = source && byPath.get(path.resolve(source.fileName));
    if (!source || diagnostic.start === undefined) {
      errors.add(message);
    } else {
      const { line } = source.getLineAndCharacterOfPosition(diagnostic.start);
      if (file) failing.add(file.name);
      errors.add(`${file ? file.origin[line] : `${source.fileName}:${line + 1}`}: ${message}`);
    }
  }
  return { errors: [...errors].sort(byPlace), failing };
}

/** Orders `file:line: message` lines by file, then by line as a number. */
function byPlace(a: string, b: string): number {
  const place = (text: string) => /^(.*?):(\d+): /.exec(text) ?? ['', text, '0'];
  const [, fileA, lineA] = place(a);
  const [, fileB, lineB] = place(b);
  return fileA === fileB ? Number(lineA) - Number(lineB) : fileA < fileB ? -1 : 1;
}

/** Why dist/ cannot be checked against, if it cannot: missing, or older than a lib/ file. */
function distProblem(): string | undefined {
  const built = path.join(PACKAGE_ROOT, 'dist', 'index.d.ts');
  if (!fs.existsSync(built)) return 'dist/ is missing: run npm run build first.';
  const builtAt = fs.statSync(built).mtimeMs;
  const lib = path.join(PACKAGE_ROOT, 'lib');
  const newer = fs
    .readdirSync(lib, { recursive: true, encoding: 'utf8' })
    .find((file) => file.endsWith('.ts') && fs.statSync(path.join(lib, file)).mtimeMs > builtAt);
  return newer && `dist/ is older than lib/${newer}: run npm run build first.`;
}

function main(argv: readonly string[]): number {
  const root = path.resolve(argValue(argv, '--root') ?? process.cwd());
  const problem = distProblem();
  if (problem) {
    console.error(problem);
    return 2;
  }
  const apps = docApps(root);
  const files = [
    ...docFiles(root).flatMap((doc) =>
      exampleFiles(doc, fs.readFileSync(path.join(root, doc), 'utf8')),
    ),
    ...appExampleFiles(apps),
  ];
  if (files.length === 0) {
    console.log('no examples to check.');
    return 0;
  }
  fs.mkdirSync(path.join(PACKAGE_ROOT, '.tmp'), { recursive: true });
  const dir = fs.mkdtempSync(path.join(PACKAGE_ROOT, '.tmp', 'doc-examples-'));
  try {
    writeProject(dir, files, apps);
    const { errors, failing } = typeCheck(dir, files);
    for (const error of errors) console.error(error);
    console.log(
      `${files.length} example(s) checked: ${failing.size} with errors, ${errors.length} error(s).`,
    );
    if (argv.includes('--keep')) console.log(`project kept in ${dir}`);
    return errors.length > 0 ? 1 : 0;
  } finally {
    if (!argv.includes('--keep')) fs.rmSync(dir, { recursive: true, force: true });
  }
}

if (require.main === module) process.exitCode = main(process.argv.slice(2));
