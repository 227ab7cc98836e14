/**
 * A small, strict reader of the XML Braintree writes in `bt_payload`: elements, attributes, text
 * and the five predefined entities with numeric character references. Nothing else is read: a
 * document type, an entity declaration, a comment, a CDATA section or a processing instruction
 * (but the leading XML declaration) is refused, so no entity can expand and no external resource
 * can be named. Nesting and the element count are bounded.
 */

/** One element: its name, attributes, child elements and text (an element has one or the other). */
export interface XmlElement {
  readonly name: string;
  readonly attributes: Readonly<Record<string, string>>;
  readonly children: readonly XmlElement[];
  /** The text of an element without children, entities resolved; empty otherwise. */
  readonly text: string;
}

/** Bounds of a document; Braintree's notifications stay far below them. */
export interface XmlLimits {
  /** Deepest nesting of elements. */
  readonly maxDepth: number;
  /** Most elements in the document. */
  readonly maxElements: number;
}

/** The bounds `parseXml` applies unless told otherwise. */
export const DEFAULT_XML_LIMITS: XmlLimits = Object.freeze({ maxDepth: 32, maxElements: 10_000 });

/** Why a document was refused; the message says where. */
export class XmlSyntaxError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'XmlSyntaxError';
  }
}

const NAME = /[A-Za-z_][A-Za-z0-9_.:-]*/y;
const WHITESPACE = /[ \t\r\n]*/y;
const DECLARATION = /^\uFEFF?<\?xml[ \t\r\n][^?<>]*\?>/;
const PREDEFINED: Readonly<Record<string, string>> = {
  lt: '<',
  gt: '>',
  amp: '&',
  quot: '"',
  apos: "'",
};

/**
 * Parses one XML document into its root element.
 * @throws XmlSyntaxError when the text is not a single well-formed element in the subset read,
 * nests deeper than `limits.maxDepth` or has more than `limits.maxElements` elements.
 * @example
 * parseXml('<notification><kind>check</kind></notification>').children[0].text // 'check'
 */
export function parseXml(text: string, limits: XmlLimits = DEFAULT_XML_LIMITS): XmlElement {
  const reader = new XmlReader(text, limits);
  return reader.document();
}

/** The first child element named `name`, if any. */
export function childElement(parent: XmlElement | undefined, name: string): XmlElement | undefined {
  return parent?.children.find((child) => child.name === name);
}

/** The text of the first child element named `name` when it is not empty, else undefined. */
export function childText(parent: XmlElement | undefined, name: string): string | undefined {
  const text = childElement(parent, name)?.text;
  return text === undefined || text.length === 0 ? undefined : text;
}

/**
 * The element as plain data for handlers: `nil="true"` is null, `type="array"` a list of its
 * children, an element with children an object by child name (a repeated name a list), any other
 * its text. Names stay as Braintree writes them (`order-id`).
 */
export function toPlainData(element: XmlElement): unknown {
  if (element.attributes.nil === 'true') return null;
  if (element.attributes.type === 'array') return element.children.map(toPlainData);
  if (element.children.length === 0) return element.text;
  const byName = new Map<string, unknown[]>();
  for (const child of element.children) {
    const values = byName.get(child.name) ?? [];
    values.push(toPlainData(child));
    byName.set(child.name, values);
  }
  // NOTE: Object.fromEntries defines own properties, so an element named "__proto__" stays data.
  return Object.fromEntries(
    [...byName].map(([name, values]) => [name, values.length === 1 ? values[0] : values]),
  );
}

class XmlReader {
  private position = 0;
  private elements = 0;

  constructor(
    private readonly text: string,
    private readonly limits: XmlLimits,
  ) {}

  document(): XmlElement {
    const declaration = DECLARATION.exec(this.text);
    this.position = declaration === null ? 0 : declaration[0].length;
    this.skipWhitespace();
    const root = this.element(1);
    this.skipWhitespace();
    if (this.position !== this.text.length) {
      this.fail('content after the root element');
    }
    return root;
  }

  private element(depth: number): XmlElement {
    if (depth > this.limits.maxDepth) {
      this.fail(`elements nest deeper than ${this.limits.maxDepth} levels`);
    }
    this.elements += 1;
    if (this.elements > this.limits.maxElements) {
      this.fail(`more than ${this.limits.maxElements} elements`);
    }
    this.expect('<');
    const name = this.name();
    const attributes = this.attributes();
    if (this.text.startsWith('/>', this.position)) {
      this.position += 2;
      return { name, attributes, children: [], text: '' };
    }
    this.expect('>');
    const children: XmlElement[] = [];
    let text = '';
    for (;;) {
      text += this.characters();
      if (this.text.startsWith('</', this.position)) break;
      if (this.position >= this.text.length) this.fail(`<${name}> is not closed`);
      const next = this.text[this.position + 1];
      if (next === '!' || next === '?') {
        this.fail('a comment, CDATA section, document type or processing instruction');
      }
      children.push(this.element(depth + 1));
    }
    this.position += 2;
    if (this.name() !== name) this.fail(`the closing tag does not match <${name}>`);
    this.skipWhitespace();
    this.expect('>');
    if (children.length > 0 && text.trim().length > 0) {
      this.fail(`<${name}> mixes text and elements`);
    }
    return { name, attributes, children, text: children.length > 0 ? '' : text };
  }

  private attributes(): Record<string, string> {
    const entries: [string, string][] = [];
    const seen = new Set<string>();
    for (;;) {
      const before = this.position;
      this.skipWhitespace();
      const c = this.text[this.position];
      if (c === '>' || c === '/' || c === undefined) return Object.fromEntries(entries);
      if (this.position === before) this.fail('attributes must be separated by whitespace');
      const name = this.name();
      if (seen.has(name)) this.fail(`attribute ${name} appears twice`);
      seen.add(name);
      this.skipWhitespace();
      this.expect('=');
      this.skipWhitespace();
      const quote = this.text[this.position];
      if (quote !== '"' && quote !== "'") this.fail(`attribute ${name} is not quoted`);
      this.position += 1;
      const end = this.text.indexOf(quote, this.position);
      if (end < 0) this.fail(`attribute ${name} is not closed`);
      const raw = this.text.slice(this.position, end);
      if (raw.includes('<')) this.fail(`attribute ${name} holds "<"`);
      entries.push([name, this.resolveEntities(raw)]);
      this.position = end + 1;
    }
  }

  /** Text up to the next `<`, entities resolved. */
  private characters(): string {
    const end = this.text.indexOf('<', this.position);
    const stop = end < 0 ? this.text.length : end;
    const raw = this.text.slice(this.position, stop);
    this.position = stop;
    return this.resolveEntities(raw);
  }

  private resolveEntities(raw: string): string {
    if (!raw.includes('&')) return raw;
    return raw.replace(/&([^;]{0,12});|&/g, (whole: string, body: string | undefined) => {
      if (body === undefined) this.fail('a "&" that starts no entity');
      return this.entity(body as string);
    });
  }

  private entity(body: string): string {
    if (Object.hasOwn(PREDEFINED, body)) return PREDEFINED[body];
    const numeric = /^#(?:x([0-9A-Fa-f]{1,6})|([0-9]{1,7}))$/.exec(body);
    const code =
      numeric === null ? undefined : parseInt(numeric[1] ?? numeric[2], numeric[1] ? 16 : 10);
    if (code === undefined || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) {
      this.fail(`the entity &${body}; is not one of the predefined ones or a character reference`);
    }
    return String.fromCodePoint(code as number);
  }

  private name(): string {
    NAME.lastIndex = this.position;
    const match = NAME.exec(this.text);
    if (match === null) this.fail('a name was expected');
    this.position = NAME.lastIndex;
    return (match as RegExpExecArray)[0];
  }

  private skipWhitespace(): void {
    WHITESPACE.lastIndex = this.position;
    WHITESPACE.exec(this.text);
    this.position = WHITESPACE.lastIndex;
  }

  private expect(c: string): void {
    if (this.text[this.position] !== c) this.fail(`"${c}" was expected`);
    this.position += 1;
  }

  private fail(problem: string): never {
    throw new XmlSyntaxError(`${problem} (at character ${this.position})`);
  }
}
