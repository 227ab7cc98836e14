import * as fs from 'node:fs';
import * as path from 'node:path';
import * as ts from 'typescript';

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

const TYPE_ONLY_HEADING = '## Exported as types only';

/** The classes, functions, constants, variables and enums declared in a report's text. */
function declaredValues(text: string): string[] {
  const declaration =
    /^export (?:declare )?(?:abstract )?(?:class|function|const(?! enum)|let|var|enum) ([A-Za-z_$][\w$]*)/gm;
  return [...new Set([...text.matchAll(declaration)].map((match) => match[1]))].sort();
}

/**
 * A report as API Extractor generated it, and a last section naming the classes and constants
 * it declares that the entry exports with `export type { … }` only: API Extractor declares them
 * as it declares any other, so without the section turning one into a runtime export would not
 * change the report.
 */
export function withTypeOnlySection(generated: string, typeOnly: readonly string[]): string {
  const names = declaredValues(generated).filter((name) => typeOnly.includes(name));
  if (names.length === 0) return generated;
  return [
    generated.trimEnd(),
    '',
    TYPE_ONLY_HEADING,
    '',
    'Declared above, but exported with `export type`: the entry has no value by these names.',
    '',
    ...names.map((name) => `- \`${name}\``),
    '',
  ].join('\n');
}

/**
 * The runtime names a report declares: its exported classes, functions, constants, variables
 * and enums (`export class X`, `export function x(`, `export const X: …`, `export enum X`),
 * not its interfaces, type aliases and `const enum`s, which leave no value in the JavaScript,
 * nor those its last section names as exported as types only.
 */
export function reportedValues(report: string): string[] {
  const [declarations, typeOnly = ''] = report.split(`\n${TYPE_ONLY_HEADING}\n`);
  const types = new Set([...typeOnly.matchAll(/^- `([^`]+)`$/gm)].map((match) => match[1]));
  return declaredValues(declarations).filter((name) => !types.has(name));
}

/** The declaration file a relative module specifier of a .d.ts names. */
function declarationFile(from: string, specifier: string): string {
  const base = path.resolve(path.dirname(from), specifier);
  return fs.existsSync(`${base}.d.ts`) ? `${base}.d.ts` : path.join(base, 'index.d.ts');
}

/**
 * The names an entry exports only with `export type { … }`, read from its built declarations
 * and the files they re-export with `export *`; a name also exported as a value is not one.
 */
export function typeOnlyExports(root: string, types: string): string[] {
  const typeOnly = new Set<string>();
  const values = new Set<string>();
  const seen = new Set<string>();
  const visit = (file: string, asTypes: boolean): void => {
    if (seen.has(`${asTypes}:${file}`)) return;
    seen.add(`${asTypes}:${file}`);
    const source = ts.createSourceFile(file, fs.readFileSync(file, 'utf8'), ts.ScriptTarget.Latest);
    for (const statement of source.statements) {
      if (!ts.isExportDeclaration(statement)) continue;
      const clause = statement.exportClause;
      const specifier = statement.moduleSpecifier;
      if (clause && ts.isNamedExports(clause)) {
        for (const element of clause.elements) {
          const target = asTypes || statement.isTypeOnly || element.isTypeOnly ? typeOnly : values;
          target.add(element.name.text);
        }
      } else if (!clause && specifier && ts.isStringLiteral(specifier)) {
        visit(declarationFile(file, specifier.text), asTypes || statement.isTypeOnly);
      }
    }
  };
  visit(path.join(root, types), false);
  return [...typeOnly].filter((name) => !values.has(name)).sort();
}
