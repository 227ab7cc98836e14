/**
 * The apps the docs build file by file: README's quick start (its files, and its changes to the
 * files `nest new` made), the testing guide's test files, runner configs and changes. The docs
 * check type-checks each app as a project of its own; the fresh-app check writes the files,
 * unchanged, into apps that `nest new` generated, applies the changes, and runs them.
 *
 * How files are read (docs/contributing-docs.md):
 * - A `ts` block whose first line is `// <path>` (a relative path ending in `.ts`, e.g.
 *   `// src/app.module.ts`) is that file of an app.
 * - A block of any other language is a file when the line right before its fence (blank lines
 *   between allowed) is `<!-- file <path> -->`.
 * - A `diff` block right after `<!-- patch -->` is a change to files of the app that `nest new`
 *   makes (a unified diff, as `git apply` takes it): what the docs add to the scaffold's own
 *   files rather than replace them with.
 * - The app is the one the last `<!-- app <name> [commonjs] [base=<name>] -->` before the block
 *   in the same Markdown file names, `shop` when there is none. An app is an ES module project
 *   unless declared `commonjs`; with `base=<other>` it also holds every file of the other app it
 *   does not write itself, and its patches of the files it does not change itself.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { docFiles, FencedBlock, splitFences } from './docs-support';

/** The app a file belongs to when no `<!-- app … -->` comment names one. */
export const DEFAULT_APP = 'shop';

const APP_COMMENT = /^\s*<!--\s*app\s+([a-z0-9-]+)((?:\s+[a-z]+(?:=[a-z0-9-]+)?)*)\s*-->\s*$/;
const FILE_COMMENT = /^\s*<!--\s*file\s+(\S+)\s*-->\s*$/;
const PATCH_COMMENT = /^\s*<!--\s*patch\s*-->\s*$/;
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
  /**
   * Its changes to files of the scaffold, by path: the base app's too, for a file it does not
   * change itself.
   */
  readonly patches: Map<string, DocAppPatch>;
}

/** A change to one file `nest new` made, as the docs show it. */
export interface DocAppPatch {
  readonly path: string;
  /** A unified diff of that file alone. */
  readonly text: string;
  /** Where it starts in the docs, `<doc file>:<line>`. */
  readonly origin: string;
}

const DIFF_FILE = /^\+\+\+ b\/(\S+)/;

/**
 * The per-file patches of a diff block that starts on line `line` of `docFile`.
 * @throws Error when the block changes no file, or a file twice.
 */
function patchesOf(docFile: string, line: number, lines: readonly string[]): DocAppPatch[] {
  const starts = lines.flatMap((text, i) => (text.startsWith('--- a/') ? [i] : []));
  if (starts.length === 0) throw new Error(`${docFile}:${line}: a patch block names no file`);
  return starts.map((start, n) => {
    const path = DIFF_FILE.exec(lines[start + 1] ?? '')?.[1];
    if (!path) throw new Error(`${docFile}:${line + start}: no '+++ b/<path>' after '--- a/'`);
    const text = lines.slice(start, starts[n + 1] ?? lines.length).join('\n') + '\n';
    return { path, text, origin: `${docFile}:${line + start}` };
  });
}

/** Whether `block` is a patch of an app: a `diff` block right after `<!-- patch -->`. */
function isPatch(lines: readonly string[], block: FencedBlock): boolean {
  if (block.info !== 'diff') return false;
  let before = block.line - 3;
  while (before >= 0 && lines[before].trim() === '') before--;
  return before >= 0 && PATCH_COMMENT.test(lines[before]);
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
      app = { name, type, ...(base ? { base } : {}), files: new Map(), patches: new Map() };
      apps.set(name, app);
    }
    return app;
  };
  const comments = lines.flatMap((line, index) => {
    const match = APP_COMMENT.exec(line);
    return match ? [{ index, name: match[1], flags: match[2] }] : [];
  });
  for (const block of splitFences(markdown).blocks) {
    const appOf = () => {
      const comment = comments.filter((c) => c.index < block.line - 2).pop();
      return comment ? declared(comment.name, comment.flags) : declared(DEFAULT_APP);
    };
    if (isPatch(lines, block)) {
      const app = appOf();
      for (const patch of patchesOf(docFile, block.line, block.lines)) {
        if (app.patches.has(patch.path)) {
          throw new Error(`${patch.origin}: app ${app.name} already changes ${patch.path}`);
        }
        app.patches.set(patch.path, patch);
      }
      continue;
    }
    const file = appFilePath(lines, block);
    if (file === undefined) continue;
    const app = appOf();
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
      for (const [file, patch] of app.patches) {
        if (known.patches.has(file)) {
          throw new Error(`${patch.origin}: app ${app.name} already changes ${file}`);
        }
        known.patches.set(file, patch);
      }
    }
  }
  const withBase = new Map<string, DocApp>();
  for (const app of apps.values()) {
    const files = new Map(app.files);
    const patches = new Map(app.patches);
    if (app.base) {
      const base = apps.get(app.base);
      if (!base) throw new Error(`app ${app.name} is based on app ${app.base}, which no doc has`);
      for (const [file, written] of base.files) if (!files.has(file)) files.set(file, written);
      for (const [file, patch] of base.patches) if (!patches.has(file)) patches.set(file, patch);
    }
    withBase.set(app.name, { ...app, files, patches });
  }
  return withBase;
}
