/**
 * The bytes of `text` when it is canonical standard base64: the alphabet `A–Z a–z 0–9 + /`,
 * `=` padding to a multiple of four characters, no whitespace, and zero bits in the unused
 * tail, so each byte string has exactly one accepted spelling. Undefined for anything else,
 * including the empty string. Every base64 signature and key in the package is decoded here.
 *
 * NOTE: `Buffer.from(text, 'base64')` alone skips characters it does not know, accepts missing
 * padding and the URL-safe alphabet, and ignores the unused tail bits; requiring the decoded
 * bytes to encode back to the same text refuses all of that, as the Standard Webhooks libraries
 * do by comparing the encoded signature strings.
 * @example
 * decodeCanonicalBase64('AQI='); // <Buffer 01 02>
 * decodeCanonicalBase64('AQI'); // undefined: no padding
 * decodeCanonicalBase64('AQJ='); // undefined: a non-zero unused bit
 */
export function decodeCanonicalBase64(text: string): Buffer | undefined {
  if (typeof text !== 'string' || text.length === 0 || text.length % 4 !== 0) {
    return undefined;
  }
  const bytes = Buffer.from(text, 'base64');
  return bytes.length > 0 && bytes.toString('base64') === text ? bytes : undefined;
}
