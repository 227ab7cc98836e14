import { createHash } from 'node:crypto';

/**
 * Characters a text column cannot hold as given: NUL (PostgreSQL refuses it in `text` and
 * `varchar`) and UTF-16 halves without their pair (no UTF-8 encoding exists for them, so the
 * drivers would silently write U+FFFD instead).
 */
// eslint-disable-next-line no-control-regex
const REFUSED = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const EVERY_REFUSED = new RegExp(REFUSED.source, 'g');

/** What a refused character is stored as. */
const REPLACEMENT = '\uFFFD';

/** Separates the kept prefix from the digest in a fitted value. */
const SEPARATOR = '~';

/** The longest digest a fitted value carries, in hex digits (all 256 bits of SHA-256). */
const MAX_DIGEST_HEX = 64;

/** The first `count` characters (code points) of `value`, a pair never split. */
function firstCodePoints(value: string, count: number): string {
  let end = 0;
  for (let kept = 0; kept < count && end < value.length; kept += 1) {
    const code = value.charCodeAt(end);
    const paired =
      code >= 0xd800 && code <= 0xdbff && (value.charCodeAt(end + 1) & 0xfc00) === 0xdc00;
    end += paired ? 2 : 1;
  }
  return value.slice(0, end);
}

/** How many characters (code points) `value` has, as PostgreSQL counts a `varchar`'s length. */
function codePointLength(value: string): number {
  let length = 0;
  for (const _ of value) {
    length += 1;
  }
  return length;
}

/**
 * The bytes a value is hashed as: its UTF-8, with an unpaired UTF-16 half written as the three
 * bytes of its code point (WTF-8), so two different values never share their bytes.
 */
function hashedBytes(value: string): Buffer {
  const parts: Buffer[] = [];
  let from = 0;
  for (let i = 0; i < value.length; i += 1) {
    const code = value.charCodeAt(i);
    if (code >= 0xd800 && code <= 0xdbff && (value.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      i += 1;
    } else if (code >= 0xd800 && code <= 0xdfff) {
      const wtf8 = [0xe0 | (code >> 12), 0x80 | ((code >> 6) & 0x3f), 0x80 | (code & 0x3f)];
      parts.push(Buffer.from(value.slice(from, i), 'utf8'), Buffer.from(wtf8));
      from = i + 1;
    }
  }
  parts.push(Buffer.from(value.slice(from), 'utf8'));
  return Buffer.concat(parts);
}

/** SHA-256 of a value, hex. */
function digestOf(value: string): string {
  return createHash('sha256').update(hashedBytes(value)).digest('hex');
}

/** `value` with each refused character replaced by U+FFFD. */
export function withoutRefusedCharacters(value: string): string {
  return value.replace(EVERY_REFUSED, REPLACEMENT);
}

/** True when `value` goes into a column of `maxLength` characters (none: `text`) as it is. */
export function fitsColumn(value: string, maxLength?: number): boolean {
  if (REFUSED.test(value)) {
    return false;
  }
  // NOTE: UTF-16 length is never below the code-point count, so the count is only taken when
  // the quick measure says the value might be too long.
  return (
    maxLength === undefined || value.length <= maxLength || codePointLength(value) <= maxLength
  );
}

/**
 * The value stored for `value` in a column of `maxLength` characters: the value itself when it
 * fits and holds no character the column refuses; otherwise the beginning of the value (refused
 * characters replaced by U+FFFD), `~` and the first hex digits of the SHA-256 of the whole value
 * (its UTF-8), so that the result fits and is the same for the same value every time. A column
 * without a length (`text`) only gets refused characters replaced.
 *
 * The digest takes half the column, at most 64 hex digits: a `varchar(255)` keeps 190 characters
 * of the value, `~` and 64 hex digits; a `varchar(8)` keeps 3, `~` and 4.
 * @example
 * fitColumn('EUR', 8) // 'EUR'
 * fitColumn('EURO-ZONE', 8) // 'EUR~' + 4 hex digits
 */
export function fitColumn(value: string, maxLength?: number): string {
  if (fitsColumn(value, maxLength)) {
    return value;
  }
  if (maxLength === undefined) {
    return withoutRefusedCharacters(value);
  }
  const digestLength = Math.min(MAX_DIGEST_HEX, Math.floor(maxLength / 2));
  const prefix = firstCodePoints(
    withoutRefusedCharacters(value),
    maxLength - digestLength - SEPARATOR.length,
  );
  return `${prefix}${SEPARATOR}${digestOf(value).slice(0, digestLength)}`;
}
