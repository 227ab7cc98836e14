import { WebhookPayloadError } from '../core/webhook-errors';

/** The fields of an `application/x-www-form-urlencoded` body (or a query string), by name. */
export type FormFields = Record<string, string>;

// NOTE: fatal, so bytes that are not UTF-8 are refused instead of read as U+FFFD.
const UTF8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Parses a verified `application/x-www-form-urlencoded` body, or a query string without `?`,
 * strictly: UTF-8 only (raw and percent-encoded), `+` read as a space, empty segments skipped,
 * a field without `=` read as an empty value.
 *
 * Stricter than `URLSearchParams` on purpose, because signatures are computed over these values:
 * a malformed `%` escape, a field without a name and a repeated field name are refused rather than
 * guessed at (a repeated name would let the signed value and the acted-on value differ).
 *
 * @param what names the body in the error, e.g. `'Sber callback'`.
 * @returns the fields by name, in an object whose keys are only the body's own field names.
 * @throws WebhookPayloadError when the body is not UTF-8, has a malformed escape, a field
 * without a name, or the same name twice.
 * @example
 * parseFormBody(Buffer.from('mdOrder=1a2b&operation=deposited&status=1'), 'Sber callback')
 * // { mdOrder: '1a2b', operation: 'deposited', status: '1' }
 */
export function parseFormBody(rawBody: Buffer, what: string): FormFields {
  let text: string;
  try {
    text = UTF8.decode(rawBody);
  } catch {
    throw new WebhookPayloadError(`${what} is not valid UTF-8`);
  }
  const entries: [string, string][] = [];
  const seen = new Set<string>();
  for (const segment of text.split('&')) {
    if (segment.length === 0) continue;
    const separator = segment.indexOf('=');
    const name = decodeComponent(separator < 0 ? segment : segment.slice(0, separator), what);
    const value = separator < 0 ? '' : decodeComponent(segment.slice(separator + 1), what);
    if (name.length === 0) {
      throw new WebhookPayloadError(`${what} has a field without a name`);
    }
    if (seen.has(name)) {
      throw new WebhookPayloadError(
        `${what} has the field ${JSON.stringify(name)} more than once; every field must appear once`,
      );
    }
    seen.add(name);
    entries.push([name, value]);
  }
  // NOTE: Object.fromEntries defines own properties, so a field named "__proto__" stays a field.
  return Object.fromEntries(entries);
}

/**
 * Encodes fields as `application/x-www-form-urlencoded` (space as `+`), in the given order, the
 * way form posts and query strings are written.
 * @example
 * encodeFormBody({ label: 'order 1', amount: '300.00' }) // 'label=order+1&amount=300.00'
 */
export function encodeFormBody(fields: Readonly<Record<string, string>>): string {
  return new URLSearchParams(Object.entries(fields)).toString();
}

function decodeComponent(component: string, what: string): string {
  try {
    // NOTE: decodeURIComponent throws on a malformed escape and on escapes that are not UTF-8.
    return decodeURIComponent(component.replace(/\+/g, ' '));
  } catch {
    throw new WebhookPayloadError(
      `${what} is not valid form encoding: a "%" escape is malformed or not UTF-8`,
    );
  }
}
