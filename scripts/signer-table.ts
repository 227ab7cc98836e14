/**
 * Writes the table of signers and fixtures in docs/testing.md, between `<!-- signers:start -->`
 * and `<!-- signers:end -->`, from the provider folders: one row per folder with a testing.ts,
 * naming the provider as its definition does, each delivery builder `/testing` takes from it (an
 * exported function that returns a `SignedDelivery`) with the required fields of its options and
 * the first sentence of its TSDoc, and its fixtures (what its `*.fixtures.ts` exports, constants
 * aside). A provider folder added, or a signer's options or TSDoc changed, changes the table.
 *
 *   npm run docs:signers               writes the table into docs/testing.md
 *   npm run docs:signers -- --check    fails when the table is not what it would write
 *   --root <dir>                       reads <dir>/lib and <dir>/docs (default: the cwd)
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as ts from 'typescript';
import { argValue, codeSpan, firstDifference, LIB_TYPES, tableCell } from './docs-support';
import { ProviderFolder, readProviderFolders } from './provider-catalog';

const PAGE = 'docs/testing.md';
const PROVIDERS = 'lib/providers';
const START = '<!-- signers:start -->';
const END = '<!-- signers:end -->';
/** The return types that make an exported function a delivery builder. */
const DELIVERY_TYPES = new Set(['SignedDelivery', 'IdentifiedDelivery']);
/** A constant of a fixtures module (`ADYEN_EXAMPLE_ITEM`): data for a test, not a builder. */
const CONSTANT = /^[A-Z][A-Z0-9_]*$/;

/** One row of the table. */
export interface SignerRow {
  readonly provider: string;
  /** Each builder as `signX({ required, … })`, with its TSDoc's first sentence. */
  readonly signers: readonly { readonly call: string; readonly summary: string }[];
  /** The fixtures' names, functions with `()`. */
  readonly fixtures: readonly string[];
}

/** The first sentence of a TSDoc text: up to a full stop outside code and abbreviations. */
export function firstSentence(text: string): string {
  const flat = text
    .replace(/\{@link\s+([^}\s]+)\s*\}/g, '`$1`')
    .replace(/\s+/g, ' ')
    .trim();
  let code = false;
  for (let i = 0; i < flat.length; i++) {
    if (flat[i] === '`') {
      code = !code;
    } else if (
      !code &&
      flat[i] === '.' &&
      (i + 1 === flat.length || flat[i + 1] === ' ') &&
      !/\b(e\.g|i\.e)$/.test(flat.slice(0, i))
    ) {
      return flat.slice(0, i + 1);
    }
  }
  return flat;
}

/** The modules a folder's testing.ts re-exports (`export * from './…'`), as files. */
function testingModules(root: string, folder: string): string[] {
  const file = path.join(root, PROVIDERS, folder, 'testing.ts');
  const source = ts.createSourceFile(file, fs.readFileSync(file, 'utf8'), ts.ScriptTarget.ES2022);
  return source.statements.flatMap((statement) =>
    ts.isExportDeclaration(statement) &&
    statement.moduleSpecifier &&
    ts.isStringLiteral(statement.moduleSpecifier)
      ? [path.join(path.dirname(file), `${statement.moduleSpecifier.text}.ts`)]
      : [],
  );
}

/** The `name` of the definition a folder's index.ts names, read from its module. */
function providerName(root: string, folder: ProviderFolder): string {
  const file = path.join(root, PROVIDERS, 'catalog', `${folder.definitionModule}.ts`);
  const source = ts.createSourceFile(file, fs.readFileSync(file, 'utf8'), ts.ScriptTarget.ES2022);
  for (const statement of source.statements) {
    if (!ts.isVariableStatement(statement)) continue;
    for (const declaration of statement.declarationList.declarations) {
      const value = declaration.initializer;
      if (nameOf(declaration) !== folder.definition || !value) continue;
      // NOTE: a definition is defineProvider({ … }), its name a property of the object given.
      const literal =
        ts.isCallExpression(value) && value.arguments.length > 0 ? value.arguments[0] : value;
      if (!ts.isObjectLiteralExpression(literal)) break;
      const name = literal.properties.find(
        (p) => ts.isPropertyAssignment(p) && nameOf(p) === 'name',
      );
      if (name && ts.isPropertyAssignment(name) && ts.isStringLiteral(name.initializer)) {
        return name.initializer.text;
      }
    }
  }
  throw new Error(`${path.relative(root, file)}: ${folder.definition} has no name as a string`);
}

/** The name of a declaration named by an identifier. */
function nameOf(declaration: ts.NamedDeclaration): string | undefined {
  return declaration.name && ts.isIdentifier(declaration.name) ? declaration.name.text : undefined;
}

function isExported(node: ts.Node): boolean {
  return (
    ts.canHaveModifiers(node) &&
    (ts.getModifiers(node) ?? []).some((m) => m.kind === ts.SyntaxKind.ExportKeyword)
  );
}

/** Reads the builders and fixtures of the provider folders with the TypeScript checker. */
class TestingExports {
  private readonly program: ts.Program;
  private readonly checker: ts.TypeChecker;

  constructor(files: readonly string[]) {
    this.program = ts.createProgram(files, {
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.CommonJS,
      moduleResolution: ts.ModuleResolutionKind.Node10,
      strict: true,
      noEmit: true,
      ...LIB_TYPES,
    });
    this.checker = this.program.getTypeChecker();
  }

  /** `signX({ a, b, … })` and the first sentence of its TSDoc, per builder of the module. */
  signers(file: string): SignerRow['signers'] {
    return this.source(file).statements.flatMap((statement) => {
      const returns = ts.isFunctionDeclaration(statement) ? statement.type : undefined;
      if (
        !ts.isFunctionDeclaration(statement) ||
        !statement.name ||
        !isExported(statement) ||
        !returns ||
        !ts.isTypeReferenceNode(returns) ||
        !ts.isIdentifier(returns.typeName) ||
        !DELIVERY_TYPES.has(returns.typeName.text)
      ) {
        return [];
      }
      const [doc] = ts.getJSDocCommentsAndTags(statement).filter(ts.isJSDoc);
      const summary = firstSentence(ts.getTextOfJSDocComment(doc?.comment) ?? '');
      return [{ call: `${statement.name.text}(${this.options(statement)})`, summary }];
    });
  }

  /**
   * What a fixtures module exports for tests to build payloads with, constants aside, each
   * builder with its parameters and every field of an options parameter:
   * `stripeFixtures.paymentIntent(status, { amount, currency, metadata, … })`.
   */
  fixtures(file: string): string[] {
    return this.source(file).statements.flatMap((statement) => {
      if (!isExported(statement)) return [];
      if (ts.isFunctionDeclaration(statement) && statement.name) {
        return [this.call(statement.name.text, this.checker.getTypeAtLocation(statement))];
      }
      if (!ts.isVariableStatement(statement)) return [];
      return statement.declarationList.declarations.flatMap((declaration) => {
        const name = nameOf(declaration);
        if (name === undefined || CONSTANT.test(name)) return [];
        const type = this.checker.getTypeAtLocation(declaration);
        if (type.getCallSignatures().length > 0) return [this.call(name, type)];
        const builders = this.checker
          .getPropertiesOfType(type)
          .map((member) => ({
            member,
            type: this.checker.getTypeOfSymbolAtLocation(member, declaration),
          }))
          .filter(({ type: memberType }) => memberType.getCallSignatures().length > 0);
        return builders.length === 0
          ? [name]
          : builders.map(({ member, type: memberType }) =>
              this.call(`${name}.${member.name}`, memberType),
            );
      });
    });
  }

  /**
   * Whether a type is one of the language's own (`Date`), whose methods are no options; a mapped
   * type of its library (`Partial<…>`) has the fields of the type it maps.
   */
  private isBuiltIn(type: ts.Type): boolean {
    const declarations = type.getSymbol()?.declarations ?? [];
    return (
      ((type as ts.ObjectType).objectFlags & ts.ObjectFlags.Mapped) === 0 &&
      declarations.length > 0 &&
      declarations.every((declaration) =>
        this.program.isSourceFileDefaultLibrary(declaration.getSourceFile()),
      )
    );
  }

  /** `name(a, { b, c })`: a builder's parameters by name, an options object's by its fields. */
  private call(name: string, type: ts.Type): string {
    const [signature] = type.getCallSignatures();
    const parameters = (signature?.getParameters() ?? []).map((parameter) => {
      const declaration = parameter.valueDeclaration;
      const parameterType = declaration
        ? this.checker.getTypeOfSymbolAtLocation(parameter, declaration)
        : undefined;
      const given = parameterType && this.checker.getNonNullableType(parameterType);
      const fields = given ? this.checker.getPropertiesOfType(given) : [];
      const isOptionsObject =
        given !== undefined &&
        fields.length > 0 &&
        (given.flags & ts.TypeFlags.Object) !== 0 &&
        !this.checker.isArrayLikeType(given) &&
        !this.isBuiltIn(given);
      return isOptionsObject
        ? `{ ${fields.map((field) => field.name).join(', ')} }`
        : parameter.name;
    });
    return `${name}(${parameters.join(', ')})`;
  }

  /** `{ a, b, … }`: the required fields of the options parameter, `…` when it has others. */
  private options(builder: ts.FunctionDeclaration): string {
    const [parameter] = builder.parameters;
    if (!parameter) return '';
    const fields = this.checker.getPropertiesOfType(this.checker.getTypeAtLocation(parameter));
    const required = fields.filter((field) => (field.flags & ts.SymbolFlags.Optional) === 0);
    const names = required.map((field) => field.name);
    return `{ ${[...names, ...(required.length < fields.length ? ['…'] : [])].join(', ')} }`;
  }

  private source(file: string): ts.SourceFile {
    const source = this.program.getSourceFile(file);
    if (!source) throw new Error(`${file} is not in the program`);
    return source;
  }
}

/** The table's rows, one per provider folder with a testing.ts, in folder order. */
export function readSignerRows(root: string, folders: readonly ProviderFolder[]): SignerRow[] {
  const testing = folders.filter((folder) => folder.testing);
  const modules = new Map(testing.map((folder) => [folder, testingModules(root, folder.name)]));
  const exports = new TestingExports(
    testing.map((folder) => path.join(root, PROVIDERS, folder.name, 'testing.ts')),
  );
  return testing.map((folder) => {
    const files = modules.get(folder) ?? [];
    return {
      provider: providerName(root, folder),
      signers: files.flatMap((file) => exports.signers(file)),
      fixtures: files
        .filter((file) => file.endsWith('.fixtures.ts'))
        .flatMap((file) => exports.fixtures(file)),
    };
  });
}

/** The generated part of the page, markers included; the same rows always give the same text. */
export function renderSignerTable(rows: readonly SignerRow[]): string {
  const lines = rows.map((row) => {
    const signers = row.signers
      .map(({ call, summary }) => `${codeSpan(call)}: ${tableCell(summary)}`)
      .join('<br>');
    const fixtures = row.fixtures.map((name) => codeSpan(name)).join(', ');
    return `| ${tableCell(row.provider)} | ${signers} | ${fixtures} |`;
  });
  return [
    START,
    '<!-- Generated by scripts/signer-table.ts from lib/providers/*/testing.ts: edit the signers and their TSDoc, then run npm run docs:signers. -->',
    '',
    '| provider | signer (→ `SignedDelivery`) | fixtures |',
    '| --- | --- | --- |',
    ...lines,
    '',
    END,
  ].join('\n');
}

/** The page with its table replaced, or undefined when it has no markers to put it between. */
export function withSignerTable(page: string, table: string): string | undefined {
  const start = page.indexOf(START);
  const end = page.indexOf(END, start);
  if (start < 0 || end < 0) return undefined;
  return `${page.slice(0, start)}${table}${page.slice(end + END.length)}`;
}

function main(argv: readonly string[]): number {
  const root = path.resolve(argValue(argv, '--root') ?? process.cwd());
  const problems: string[] = [];
  const folders = readProviderFolders(root, problems);
  if (problems.length > 0) {
    console.error(`${problems.length} problem(s) in the provider folders; no table written:`);
    for (const problem of problems) console.error(`  ${problem}`);
    return 1;
  }
  const output = path.join(root, PAGE);
  const current = fs.readFileSync(output, 'utf8');
  // NOTE: a page without markers is refused before the checker reads the providers.
  const page =
    withSignerTable(current, '') === undefined
      ? undefined
      : withSignerTable(current, renderSignerTable(readSignerRows(root, folders)));
  if (page === undefined) {
    console.error(`${PAGE} has no ${START} … ${END} to write the table of signers between.`);
    return 1;
  }
  if (argv.includes('--check')) {
    if (current === page) return 0;
    const diff = firstDifference(current, page);
    console.error(`${PAGE}'s table of signers is stale: run npm run docs:signers and commit it.`);
    console.error(`  first difference at line ${diff.line}:`);
    console.error(`  - ${diff.found ?? '(end of file)'}`);
    console.error(`  + ${diff.expected ?? '(end of file)'}`);
    return 1;
  }
  fs.writeFileSync(output, page);
  console.log(`wrote the table of signers in ${PAGE}`);
  return 0;
}

if (require.main === module) process.exitCode = main(process.argv.slice(2));
