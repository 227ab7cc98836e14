/**
 * CRC-32 (IEEE 802.3, the zlib and `java.util.zip.CRC32` polynomial), table-driven.
 *
 * NOTE: `zlib.crc32` exists only from Node 20.15 and 22.2, and the package supports every Node 20;
 * this is the same function (reflected polynomial 0xEDB88320, initial and final XOR 0xFFFFFFFF).
 */

const POLYNOMIAL = 0xedb88320;

const TABLE: Uint32Array = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let bit = 0; bit < 8; bit++) {
      c = c & 1 ? POLYNOMIAL ^ (c >>> 1) : c >>> 1;
    }
    table[n] = c >>> 0;
  }
  return table;
})();

/**
 * The CRC-32 of `data` as an unsigned integer (0 … 4294967295), the value zlib and Java report.
 * @param data bytes, or a string taken as its UTF-8 bytes.
 * @example
 * crc32('123456789'); // 3421780262 (0xCBF43926)
 */
export function crc32(data: Uint8Array | string): number {
  const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
  let crc = 0xffffffff;
  for (let i = 0; i < bytes.length; i++) {
    crc = TABLE[(crc ^ bytes[i]) & 0xff] ^ (crc >>> 8);
  }
  // NOTE: `>>> 0` keeps the result unsigned; bitwise operators in JavaScript yield signed 32-bit values.
  return (crc ^ 0xffffffff) >>> 0;
}
