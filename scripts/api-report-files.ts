import * as fs from 'node:fs';
import * as path from 'node:path';

/** The folder of the committed API reports, one per entry of package.json's `exports`. */
export const REPORT_FOLDER = 'api';

/** One entry of the package and the report that pins its surface. */
export interface ReportedEntry {
  /** The subpath as package.json declares it: `.`, `./testing`, … */
  readonly path: string;
  /** The entry's built declarations, relative to the root: `dist/testing/index.d.ts`. */
  readonly types: string;
  /** Its report's name without the folder: `nestjs-payment-webhooks-testing.api.md`. */
  readonly report: string;
}

interface PackageJson {
  name: string;
  exports: Record<string, string | { types?: string }>;
}

/** Every entry package.json exports, in its order, with the report that pins it. */
export function reportedEntries(root: string): ReportedEntry[] {
  const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as PackageJson;
  const entries: ReportedEntry[] = [];
  for (const [subpath, target] of Object.entries(pkg.exports)) {
    // NOTE: `./package.json` is metadata, not an entry with an API.
    if (typeof target === 'string' || !target.types) continue;
    const suffix = subpath === '.' ? '' : `-${subpath.slice(2).replace(/\//g, '-')}`;
    entries.push({
      path: subpath,
      types: path.posix.normalize(target.types),
      report: `${pkg.name}${suffix}.api.md`,
    });
  }
  return entries;
}

/**
 * The runtime names a report declares: its exported classes, functions, constants, variables
 * and enums (`export class X`, `export function x(`, `export const X: …`, `export enum X`),
 * not its interfaces, type aliases and `const enum`s, which leave no value in the JavaScript.
 */
export function reportedValues(report: string): string[] {
  const names = new Set<string>();
  const declaration =
    /^export (?:declare )?(?:abstract )?(?:class|function|const(?! enum)|let|var|enum) ([A-Za-z_$][\w$]*)/gm;
  for (const match of report.matchAll(declaration)) names.add(match[1]);
  return [...names].sort();
}
