import * as path from 'node:path';
import { LIB_TYPES } from './docs-support';
import * as ts from 'typescript';

/** One documented option: a row of the reference. */
export interface OptionRow {
  /** Dotted path from the root options object, e.g. `dispatch.retry.maxAttempts`; `[]` for list items. */
  readonly path: string;
  /** The type as written in the source. */
  readonly type: string;
  /** The `@default` tag, `required` for a required option without one, else empty. */
  readonly default: string;
  readonly description: string;
  /** Tagged `@advanced`, or reached through an option that is: a tuning knob. */
  readonly advanced: boolean;
}

/** An old name still read until the next major, tagged `@deprecated`: listed, not tabled. */
export interface DeprecatedRow {
  readonly path: string;
  /** The `@deprecated` tag's text: what to use instead. */
  readonly instead: string;
}

/** One options interface: a table of the reference. */
export interface OptionsTable {
  readonly name: string;
  /** Where the interface sits below its root, e.g. `dispatch.retry`; empty for a root. */
  readonly at: string;
  readonly summary: string;
  /** Parents given a table of their own, named instead of repeated. */
  readonly alsoTakes: readonly string[];
  readonly rows: readonly OptionRow[];
  readonly deprecated: readonly DeprecatedRow[];
}

/** Where options are declared: an interface, or a type alias of unions and object literals. */
export type OptionsShape = ts.InterfaceDeclaration | ts.TypeAliasDeclaration;

/** An options shape a member reaches, and how. */
interface NestedShape {
  readonly shape: OptionsShape;
  readonly partial: boolean;
  readonly element: boolean;
}

/** An option without JSDoc text, with where it is declared. */
export interface UndocumentedOption {
  readonly option: string;
  readonly location: string;
}

/**
 * Reads options out of the package's source with the TypeScript compiler: an interface's
 * members, those of the parents it extends (unless a parent has a table of its own), and every
 * nested options shape it reaches. A nested shape is an interface declared in `lib/` with only
 * properties (no methods), or a type alias there of object literals and such interfaces; what a
 * factory hands the user, such as `WebhookEndpoint`, is left out through `notOptions`.
 */
export class OptionsModel {
  private readonly program: ts.Program;
  private readonly checker: ts.TypeChecker;
  private readonly documented = new Set<string>();
  /** Members of one alternative of a union: required only when that alternative is chosen. */
  private readonly alternatives = new WeakSet<ts.PropertySignature>();
  readonly undocumented: UndocumentedOption[] = [];

  constructor(
    private readonly root: string,
    files: readonly string[],
    private readonly standalone: ReadonlySet<string>,
    private readonly notOptions: ReadonlySet<string>,
  ) {
    this.program = ts.createProgram(
      files.map((file) => path.join(root, file)),
      {
        target: ts.ScriptTarget.ES2022,
        module: ts.ModuleKind.CommonJS,
        moduleResolution: ts.ModuleResolutionKind.Node10,
        strict: true,
        experimentalDecorators: true,
        noEmit: true,
        ...LIB_TYPES,
      },
    );
    this.checker = this.program.getTypeChecker();
  }

  /** The interface an entry file exports under this name. */
  exportedInterface(file: string, name: string): ts.InterfaceDeclaration {
    const declaration = this.exported(file, name).declarations?.find(ts.isInterfaceDeclaration);
    if (!declaration) throw new Error(`${file} exports no interface ${name}`);
    return declaration;
  }

  /** The names an entry file exports whose declarations are functions, in source order. */
  exportedFunctions(file: string, pattern: RegExp): string[] {
    const module = this.checker.getSymbolAtLocation(this.sourceFile(file));
    const exports = module ? this.checker.getExportsOfModule(module) : [];
    return exports
      .filter((symbol) => pattern.test(symbol.name))
      .filter((symbol) => this.resolve(symbol).declarations?.some(ts.isFunctionDeclaration))
      .map((symbol) => symbol.name);
  }

  /** The interface of the first parameter of a function an entry file exports. */
  parameterInterface(file: string, name: string): OptionsShape {
    const fn = this.exported(file, name).declarations?.find(ts.isFunctionDeclaration);
    const type = fn?.parameters[0]?.type;
    const found = type && ts.isTypeReferenceNode(type) ? this.shapesOf(type.typeName) : [];
    if (found.length !== 1) throw new Error(`${name}() takes no options interface`);
    return found[0];
  }

  /**
   * The table of an options shape, each followed by those of the nested options it reaches. An
   * option tagged `@deprecated` is listed apart, its nested options not followed; the options
   * under one tagged `@advanced` are all advanced.
   */
  tables(shape: OptionsShape, at = '', partial = false, advanced = false): OptionsTable[] {
    const name = shape.name.text;
    if (this.documented.has(name)) return [];
    this.documented.add(name);
    const rows: OptionRow[] = [];
    const deprecated: DeprecatedRow[] = [];
    const nested: OptionsTable[] = [];
    for (const member of this.members(shape)) {
      const option = at ? `${at}.${memberName(member)}` : memberName(member);
      const instead = tagText(member, 'deprecated');
      if (instead !== undefined) {
        deprecated.push({ path: option, instead });
        continue;
      }
      const knob = advanced || tagText(member, 'advanced') !== undefined;
      rows.push(this.row(name, member, option, partial, knob));
      for (const inner of this.nestedOptions(member)) {
        const path = inner.element ? `${option}[]` : option;
        nested.push(...this.tables(inner.shape, path, inner.partial, knob));
      }
    }
    const alsoTakes = ts.isInterfaceDeclaration(shape)
      ? this.parents(shape)
          .map((parent) => parent.name.text)
          .filter((p) => this.standalone.has(p))
      : [];
    return [{ name, at, summary: jsDocText(shape), alsoTakes, rows, deprecated }, ...nested];
  }

  private row(
    table: string,
    member: ts.PropertySignature,
    option: string,
    partial: boolean,
    advanced: boolean,
  ): OptionRow {
    const description = jsDocText(member);
    if (!description) {
      const file = member.getSourceFile();
      const { line } = file.getLineAndCharacterOfPosition(member.getStart());
      this.undocumented.push({
        option: `${table}.${memberName(member)}`,
        location: `${path.relative(this.root, file.fileName)}:${line + 1}`,
      });
    }
    const tagged = defaultTag(member);
    return {
      path: option,
      type: oneLine(member.type?.getText() ?? 'unknown'),
      default: tagged || (member.questionToken || partial ? '' : this.required(member)),
      description,
      advanced,
    };
  }

  private required(member: ts.PropertySignature): string {
    return this.alternatives.has(member) ? 'required in its alternative' : 'required';
  }

  /**
   * The options of a shape: for an interface, those of parents without a table of their own,
   * then its own; for a type alias, those of every member of its unions and intersections. A
   * member typed `undefined` only marks an alternative's absence and is no option.
   */
  private members(shape: OptionsShape): ts.PropertySignature[] {
    const all = ts.isInterfaceDeclaration(shape)
      ? [
          ...this.parents(shape)
            .filter((parent) => !this.standalone.has(parent.name.text))
            .flatMap((parent) => this.members(parent)),
          ...shape.members.filter(ts.isPropertySignature),
        ]
      : this.membersOfType(shape.type);
    const seen = new Set<string>();
    return all.filter((member) => {
      const name = memberName(member);
      if (member.type?.kind === ts.SyntaxKind.UndefinedKeyword || seen.has(name)) return false;
      seen.add(name);
      return true;
    });
  }

  private membersOfType(node: ts.TypeNode): ts.PropertySignature[] {
    if (ts.isTypeLiteralNode(node)) return node.members.filter(ts.isPropertySignature);
    if (ts.isParenthesizedTypeNode(node)) return this.membersOfType(node.type);
    if (ts.isIntersectionTypeNode(node)) return node.types.flatMap((t) => this.membersOfType(t));
    if (ts.isUnionTypeNode(node)) {
      const members = node.types.flatMap((type) => this.membersOfType(type));
      members.forEach((member) => this.alternatives.add(member));
      return members;
    }
    if (!ts.isTypeReferenceNode(node)) return [];
    return this.shapesOf(node.typeName).flatMap((shape) => this.members(shape));
  }

  private parents(declaration: ts.InterfaceDeclaration): ts.InterfaceDeclaration[] {
    const clauses = declaration.heritageClauses ?? [];
    return clauses.flatMap((clause) =>
      clause.types.flatMap((type) =>
        ts.isIdentifier(type.expression)
          ? this.shapesOf(type.expression).filter(ts.isInterfaceDeclaration)
          : [],
      ),
    );
  }

  /**
   * The options shapes a member's type names, not looking into function types; `partial` when
   * given through `Partial<…>`, which makes every option of the shape optional, `element` when
   * the member is a list of them.
   */
  private nestedOptions(member: ts.PropertySignature): NestedShape[] {
    const found: NestedShape[] = [];
    const visit = (node: ts.Node, partial: boolean, element: boolean): void => {
      if (ts.isFunctionTypeNode(node) || ts.isConstructorTypeNode(node)) return;
      if (ts.isTypeReferenceNode(node)) {
        for (const shape of this.shapesOf(node.typeName)) found.push({ shape, partial, element });
        partial ||= node.typeName.getText() === 'Partial';
      }
      element ||= ts.isArrayTypeNode(node);
      ts.forEachChild(node, (child) => visit(child, partial, element));
    };
    if (member.type) visit(member.type, false, false);
    return found.filter(({ shape }) => {
      if (this.notOptions.has(shape.name.text)) return false;
      if (ts.isInterfaceDeclaration(shape)) return shape.members.every(ts.isPropertySignature);
      return this.membersOfType(shape.type).length > 0;
    });
  }

  /** Interfaces and type aliases declared in `lib/` that a type name stands for. */
  private shapesOf(name: ts.EntityName): OptionsShape[] {
    const symbol = this.checker.getSymbolAtLocation(name);
    const declarations = (symbol && this.resolve(symbol).declarations) || [];
    return declarations
      .filter((d) => this.inLib(d))
      .filter(
        (d): d is OptionsShape => ts.isInterfaceDeclaration(d) || ts.isTypeAliasDeclaration(d),
      );
  }

  private exported(file: string, name: string): ts.Symbol {
    const module = this.checker.getSymbolAtLocation(this.sourceFile(file));
    const symbol = module && this.checker.getExportsOfModule(module).find((s) => s.name === name);
    if (!symbol) throw new Error(`${file} exports no ${name}`);
    return this.resolve(symbol);
  }

  private resolve(symbol: ts.Symbol): ts.Symbol {
    return symbol.flags & ts.SymbolFlags.Alias ? this.checker.getAliasedSymbol(symbol) : symbol;
  }

  private sourceFile(file: string): ts.SourceFile {
    const source = this.program.getSourceFile(path.join(this.root, file));
    if (!source) throw new Error(`${file} is not in the program`);
    return source;
  }

  private inLib(node: ts.Node): boolean {
    const relative = path.relative(path.join(this.root, 'lib'), node.getSourceFile().fileName);
    return !relative.startsWith('..') && !path.isAbsolute(relative);
  }
}

function memberName(member: ts.PropertySignature): string {
  return member.name.getText();
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** The JSDoc text of a node, `{@link X}` written as `X`, on one line. */
function jsDocText(node: ts.Node): string {
  const docs = ts.getJSDocCommentsAndTags(node).filter(ts.isJSDoc);
  const text = docs.map((doc) => ts.getTextOfJSDocComment(doc.comment) ?? '').join(' ');
  return oneLine(renderLinks(text));
}

function defaultTag(node: ts.Node): string {
  return tagText(node, 'default') ?? '';
}

/** The text of a JSDoc tag on one line (empty for a bare tag), or undefined without the tag. */
function tagText(node: ts.Node, name: string): string | undefined {
  const tag = ts.getJSDocTags(node).find((t) => t.tagName.text === name);
  return tag ? oneLine(renderLinks(ts.getTextOfJSDocComment(tag.comment) ?? '')) : undefined;
}

function renderLinks(text: string): string {
  return text.replace(/\{@link(?:code|plain)?\s+([^\s|}]+)[^}]*\}/g, '$1');
}
