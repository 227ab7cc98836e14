import { crc32 } from './internals';

/**
 * `prefix + padding + suffix` whose CRC-32 is `target`: the padding is `length` letters, each an
 * `a` or a `b`, chosen by solving the CRC's linear equations over GF(2). Between two texts of
 * the same length the CRC differs by a linear function of their difference, so each position
 * turned from `a` to `b` flips a fixed set of the CRC's 32 bits, and 48 positions are enough to
 * reach any value. Letters keep the text valid inside a JSON string.
 * @throws Error in the rare case the positions do not span every value (try another length).
 */
export function withCrc32(prefix: string, suffix: string, target: number, length = 48): string {
  const text = (pad: string) => `${prefix}${pad}${suffix}`;
  const base = 'a'.repeat(length);
  const baseCrc = crc32(text(base));
  // NOTE: each row is [the CRC bits one position flips, the set of positions that makes it].
  const rows: [number, bigint][] = [];
  for (let i = 0; i < length; i += 1) {
    const flipped = `${base.slice(0, i)}b${base.slice(i + 1)}`;
    rows.push([(crc32(text(flipped)) ^ baseCrc) >>> 0, 1n << BigInt(i)]);
  }
  const basis = new Map<number, [number, bigint]>();
  for (let [bits, positions] of rows) {
    for (let bit = 31; bit >= 0 && bits !== 0; bit -= 1) {
      if (((bits >>> bit) & 1) === 0) continue;
      const pivot = basis.get(bit);
      if (pivot === undefined) {
        basis.set(bit, [bits, positions]);
        bits = 0;
      } else {
        bits = (bits ^ pivot[0]) >>> 0;
        positions ^= pivot[1];
      }
    }
  }
  let wanted = (baseCrc ^ target) >>> 0;
  let chosen = 0n;
  for (let bit = 31; bit >= 0; bit -= 1) {
    if (((wanted >>> bit) & 1) === 0) continue;
    const pivot = basis.get(bit);
    if (pivot === undefined) throw new Error(`${length} positions do not reach this CRC-32`);
    wanted = (wanted ^ pivot[0]) >>> 0;
    chosen ^= pivot[1];
  }
  const pad = [...base].map((_, i) => ((chosen >> BigInt(i)) & 1n ? 'b' : 'a')).join('');
  const forged = text(pad);
  if (crc32(forged) !== target >>> 0) throw new Error('the CRC-32 was not reached');
  return forged;
}
