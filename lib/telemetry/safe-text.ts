import { INVISIBLE_FORMAT_CHARACTERS } from './invisible-characters';
import { redact } from './redact';

/**
 * Characters a terminal or a log viewer acts on instead of showing: the C0 controls (line
 * breaks, ESC that starts an ANSI sequence, BEL, backspace), DEL, the C1 controls (0x9b is a
 * one-byte CSI on some terminals), the Unicode line and paragraph separators, the bidirectional
 * marks and overrides that reorder what is shown, and the invisible format characters (a
 * zero-width space, a soft hyphen, a byte order mark) that make two different values look alike.
 */
const SHOWN_AS_ESCAPES = `\\u200e\\u200f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069${INVISIBLE_FORMAT_CHARACTERS}`;
const UNSAFE = new RegExp(`[\\u0000-\\u001f\\u007f-\\u009f${SHOWN_AS_ESCAPES}]`, 'g');
/** The same without the line feed, for text shown as several lines. */
const UNSAFE_BUT_LINE_FEED = new RegExp(
  `[\\u0000-\\u0009\\u000b-\\u001f\\u007f-\\u009f${SHOWN_AS_ESCAPES}]`,
  'g',
);
/** What `JSON.stringify` leaves raw of the above (it escapes the C0 controls itself). */
const UNSAFE_IN_JSON = new RegExp(`[\\u007f-\\u009f${SHOWN_AS_ESCAPES}]`, 'g');

const NAMED_ESCAPES: ReadonlyMap<string, string> = new Map([
  ['\n', '\\n'],
  ['\r', '\\r'],
  ['\t', '\\t'],
]);

/** `\n`, `\x1b`, `\u202e`: the character written so it can be read, not acted on. */
function visible(char: string): string {
  const code = char.charCodeAt(0);
  return (
    NAMED_ESCAPES.get(char) ??
    (code < 0x100
      ? `\\x${code.toString(16).padStart(2, '0')}`
      : `\\u${code.toString(16).padStart(4, '0')}`)
  );
}

/** Options of `safeText()`. */
export interface SafeTextOptions {
  /**
   * Leaves line feeds as they are, for a block shown as several lines (a stored body in
   * `events show`); every other control character is still escaped.
   * @default false
   */
  readonly keepLineFeeds?: boolean;
}

/**
 * Makes untrusted text (ids, references, types, reasons, bodies: anything a delivery or a stored
 * row carries) safe for a log line or a terminal: card numbers and CVV fields are masked as
 * `redact()` does, and control characters, ANSI escapes and bidirectional overrides are written
 * visibly (`\n`, `\x1b[31m`, `\u202e`), so a value can neither forge a log line nor drive the
 * terminal that shows it. The one place every log line and CLI output goes through.
 *
 * NOTE: a backslash is left as it is: a value that spells `\n` is shown as typed, which may read
 * like an escape but cannot act as one.
 * @example
 * safeText('order\n\x1b[31m4111111111111111') // 'order\\n\\x1b[31m411111******1111'
 */
export function safeText(value: unknown, options: SafeTextOptions = {}): string {
  const text = typeof value === 'string' ? value : String(value);
  return redact(text).replace(options.keepLineFeeds ? UNSAFE_BUT_LINE_FEED : UNSAFE, visible);
}

/** Longest untrusted value `shortText()` shows. */
const MAX_SHORT_TEXT = 200;

/**
 * `value` made safe as `safeText()` makes it, cut to `max` characters with its length said, for
 * values from outside that may be of any size (a queue job's id or data) in one log line.
 * NOTE: masked before it is cut, so a card number across the cut is never half shown.
 * @example shortText('x'.repeat(5000), 3) // 'xxx… (5000 characters)'
 */
export function shortText(value: unknown, max = MAX_SHORT_TEXT): string {
  const text = typeof value === 'string' ? value : String(value);
  const safe = safeText(text);
  return safe.length <= max ? safe : `${safe.slice(0, max)}… (${text.length} characters)`;
}

/**
 * `value` as JSON that is safe in a terminal: every string masked as `safeText()` masks it, and
 * the characters `JSON.stringify` leaves raw written as `\u` escapes, so whoever parses the JSON
 * gets the exact (masked) value back.
 */
export function safeJson(value: unknown, indent?: number): string {
  const json = JSON.stringify(
    value,
    (_key, item: unknown) => (typeof item === 'string' ? redact(item) : item),
    indent,
  );
  return json.replace(
    UNSAFE_IN_JSON,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/**
 * A log message or parameter made safe: strings through `safeText()`, arrays and plain objects
 * field by field, an error as its name and message; numbers, booleans and the like as they are.
 */
export function safeLogValue(value: unknown): unknown {
  if (typeof value === 'string') {
    return safeText(value);
  }
  if (value instanceof Error) {
    return safeText(`${value.name}: ${value.message}`);
  }
  if (Array.isArray(value)) {
    return value.map(safeLogValue);
  }
  if (isPlainObject(value)) {
    // NOTE: fromEntries defines own properties, so a key named "__proto__" stays a key.
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [safeText(key), safeLogValue(item)]),
    );
  }
  return value;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) {
    return false;
  }
  const prototype = Object.getPrototypeOf(value) as unknown;
  return prototype === Object.prototype || prototype === null;
}
