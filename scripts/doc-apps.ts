/**
 * The apps the docs build file by file: README's quick start (`src/app.module.ts`,
 * `src/main.ts`), the testing guide's test files and runner configs. The docs check type-checks
 * each app as a project of its own; the fresh-app check writes them, unchanged, into apps that
 * `nest new` generated, and runs them.
 *
 * How files are read (docs/contributing-docs.md):
 * - A `ts` block whose first line is `// <path>` (a relative path ending in `.ts`, e.g.
 *   `// src/app.module.ts`) is that file of an app.
 * - A block of any other language is a file when the line right before its fence (blank lines
 *   between allowed) is `<!-- file <path> -->`.
 * - The app is the one the last `<!-- app <name> [commonjs] [base=<name>] -->` before the block
 *   in the same Markdown file names, `shop` when there is none. An app is an ES module project
 *   unless declared `commonjs`; with `base=<other>` it also holds every file of the other app it
 *   does not write itself.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { docFiles, FencedBlock, splitFences } from './docs-support';

/** The app a file belongs to when no `<!-- app … -->` comment names one. */
export const DEFAULT_APP = 'shop';

const APP_COMMENT = /^\s*<!--\s*app\s+([a-z0-9-]+)((?:\s+[a-z]+(?:=[a-z0-9-]+)?)*)\s*-->\s*$/;
const FILE_COMMENT = /^\s*<!--\s*file\s+(\S+)\s*-->\s*$/;
const PATH_LINE = /^\s*\/\/\s*((?:[\w.-]+\/)*[\w.-]+\.ts)\s*$/;

/** One file of an app, as written in the docs. */
export interface DocAppFile {
  /** Its path in the app, e.g. `src/app.module.ts`. */
  readonly path: string;
  readonly text: string;
  /** Per line of `text`, `<doc file>:<line>`. */
  readonly origin: readonly string[];
}

/** An app the docs build. */
export interface DocApp {
  readonly name: string;
  readonly type: 'module' | 'commonjs';
  /** The app whose files this one also holds. */
  readonly base?: string;
  /** Its files by path, the base app's included. */
  readonly files: Map<string, DocAppFile>;
}

/** The path a block is a file of, if it is one (see the module's comment). */
export function appFilePath(lines: readonly string[], block: FencedBlock): string | undefined {
  if (block.info === 'ts' || block.info === 'typescript') {
    const match = PATH_LINE.exec(block.lines[0] ?? '');
    if (match && !match[1].startsWith('.')) return match[1];
  }
  let before = block.line - 3;
  while (before >= 0 && lines[before].trim() === '') before--;
  return before >= 0 ? FILE_COMMENT.exec(lines[before])?.[1] : undefined;
}

/** The apps of one Markdown file, each with the files it writes (no base files yet). */
export function appsIn(docFile: string, markdown: string): DocApp[] {
  const lines = markdown.split('\n');
  const apps = new Map<string, DocApp>();
  const declared = (name: string, flags = '') => {
    let app = apps.get(name);
    if (!app) {
      const base = /\bbase=([a-z0-9-]+)/.exec(flags)?.[1];
      const type = /\bcommonjs\b/.test(flags) ? 'commonjs' : 'module';
      app = { name, type, ...(base ? { base } : {}), files: new Map() };
      apps.set(name, app);
    }
    return app;
  };
  const comments = lines.flatMap((line, index) => {
    const match = APP_COMMENT.exec(line);
    return match ? [{ index, name: match[1], flags: match[2] }] : [];
  });
  for (const block of splitFences(markdown).blocks) {
    const file = appFilePath(lines, block);
    if (file === undefined) continue;
    const comment = comments.filter((c) => c.index < block.line - 2).pop();
    const app = comment ? declared(comment.name, comment.flags) : declared(DEFAULT_APP);
    if (app.files.has(file)) {
      throw new Error(`${docFile}:${block.line}: app ${app.name} already has a ${file}`);
    }
    app.files.set(file, {
      path: file,
      text: block.lines.join('\n') + '\n',
      origin: block.lines.map((_, offset) => `${docFile}:${block.line + offset}`),
    });
  }
  return [...apps.values()];
}

/**
 * Every app of the docs under `root` (README.md, docs/**), each with its base app's files.
 * @throws Error when two docs declare one app differently, one writes a file twice, or a base
 * app does not exist
 */
export function docApps(root: string): Map<string, DocApp> {
  const apps = new Map<string, DocApp>();
  for (const doc of docFiles(root)) {
    for (const app of appsIn(doc, fs.readFileSync(path.join(root, doc), 'utf8'))) {
      const known = apps.get(app.name);
      if (!known) {
        apps.set(app.name, app);
        continue;
      }
      if (app.type !== known.type || (app.base && app.base !== known.base)) {
        throw new Error(`${doc}: app ${app.name} is declared differently elsewhere`);
      }
      for (const [file, written] of app.files) {
        if (known.files.has(file)) {
          throw new Error(`${written.origin[0]}: app ${app.name} already has a ${file}`);
        }
        known.files.set(file, written);
      }
    }
  }
  const withBase = new Map<string, DocApp>();
  for (const app of apps.values()) {
    const files = new Map(app.files);
    if (app.base) {
      const base = apps.get(app.base);
      if (!base) throw new Error(`app ${app.name} is based on app ${app.base}, which no doc has`);
      for (const [file, written] of base.files) if (!files.has(file)) files.set(file, written);
    }
    withBase.set(app.name, { ...app, files });
  }
  return withBase;
}
