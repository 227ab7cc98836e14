const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/**
 * Spellings of the same bytes that a lenient decoder (`Buffer.from(text, 'base64')`) reads as
 * `canonical` but canonical base64 does not: `canonical` must end in `=` (a length that is not
 * a multiple of three bytes), as a SHA-256 MAC or an Ed25519 signature does.
 */
export function nonCanonicalBase64(canonical: string): [label: string, text: string][] {
  if (!canonical.endsWith('=')) {
    throw new Error('nonCanonicalBase64 needs a padded encoding');
  }
  const unpadded = canonical.replace(/=+$/, '');
  const last = unpadded.length - 1;
  // NOTE: the last character before "=" has unused low bits; setting one keeps the bytes.
  const tail = ALPHABET[ALPHABET.indexOf(unpadded[last]) | 1];
  const middle = Math.floor(canonical.length / 2);
  const variants: [string, string][] = [
    ['unpadded', unpadded],
    ['with a non-zero unused bit', `${unpadded.slice(0, last)}${tail}${canonical.slice(last + 1)}`],
    ['with a line break inside', `${canonical.slice(0, middle)}\n${canonical.slice(middle)}`],
    [
      'with a character outside the alphabet',
      `${canonical.slice(0, middle)}*${canonical.slice(middle)}`,
    ],
  ];
  if (/[+/]/.test(canonical)) {
    variants.push(['in the URL-safe alphabet', canonical.replace(/\+/g, '-').replace(/\//g, '_')]);
  }
  for (const [label, text] of variants) {
    if (!Buffer.from(text, 'base64').equals(Buffer.from(canonical, 'base64'))) {
      throw new Error(`nonCanonicalBase64: the ${label} spelling decodes to other bytes`);
    }
  }
  return variants;
}
