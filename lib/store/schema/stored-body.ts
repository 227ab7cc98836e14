import { isUtf8 } from 'node:buffer';
import { fitsColumn } from './column-fit';

/**
 * Starts the stored text of a body kept as base64. A body whose own text starts with it is kept
 * as base64 too, so the stored text always reads back to the exact bytes.
 */
export const BASE64_BODY_PREFIX = 'base64:';

/**
 * The text stored in `raw_body` for a delivery's body: the body itself when it is UTF-8 text
 * without NUL; otherwise `base64:` and the base64 of its bytes. PostgreSQL's `text` holds neither
 * NUL nor bytes that are not UTF-8, and a body must come back byte for byte (its SHA-256 is
 * `body_sha256`; handlers' payloads are parsed from it again).
 * @param body the bytes as received, or text (stored as its UTF-8).
 * @example
 * storedBodyText(Buffer.from('{"id":"evt_1"}')) // '{"id":"evt_1"}'
 * storedBodyText(Buffer.from('mdOrder=a\u0000b')) // 'base64:bWRPcmRlcj1hAGI='
 */
export function storedBodyText(body: Buffer | string): string {
  if (typeof body === 'string') {
    // NOTE: a JavaScript string may hold a UTF-16 half without its pair, which no UTF-8 can;
    // such a body is stored as the bytes the driver would have written (U+FFFD for the half).
    return fitsColumn(body) && isPlainText(body) ? body : asBase64(Buffer.from(body, 'utf8'));
  }
  // NOTE: text decoded from valid UTF-8 has every UTF-16 pair whole.
  const text = isUtf8(body) ? body.toString('utf8') : undefined;
  return text !== undefined && isPlainText(text) ? text : asBase64(body);
}

/** The exact bytes of a body from the text `storedBodyText()` stored for it. */
export function storedBodyBytes(stored: string): Buffer {
  return stored.startsWith(BASE64_BODY_PREFIX)
    ? Buffer.from(stored.slice(BASE64_BODY_PREFIX.length), 'base64')
    : Buffer.from(stored, 'utf8');
}

/** True when `stored` holds its body as base64 rather than as the body's own text. */
export function isBase64Body(stored: string): boolean {
  return stored.startsWith(BASE64_BODY_PREFIX);
}

function asBase64(bytes: Buffer): string {
  return BASE64_BODY_PREFIX + bytes.toString('base64');
}

/** UTF-8 text `raw_body` holds as it is and reads back as the same body. */
function isPlainText(text: string): boolean {
  return !text.includes('\u0000') && !text.startsWith(BASE64_BODY_PREFIX);
}
