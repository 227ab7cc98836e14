import * as zlib from 'node:zlib';
import fc from 'fast-check';
import { crc32 } from './crc32';

// NOTE: zlib.crc32 exists from Node 20.15 / 22.2; on older Node the cross-check is skipped.
const zlibCrc32 = (zlib as unknown as { crc32?: (data: Uint8Array) => number }).crc32;

describe('crc32', () => {
  it.each([
    ['the check value "123456789"', '123456789', 3421780262],
    ['an empty input', '', 0],
    [
      '"The quick brown fox jumps over the lazy dog"',
      'The quick brown fox jumps over the lazy dog',
      0x414fa339,
    ],
    ['"a"', 'a', 0xe8b7be43],
  ])('gives the published CRC-32 of %s', (_label, input, expected) => {
    expect(crc32(input)).toBe(expected);
    expect(crc32(Buffer.from(input, 'utf8'))).toBe(expected);
  });

  it('is unsigned where a signed implementation would go negative', () => {
    // 0xCBF43926 has the top bit set: as a signed int32 it would be -889275714.
    expect(crc32('123456789')).toBeGreaterThan(2 ** 31);
  });

  it('reads a string as UTF-8', () => {
    expect(crc32('Café ☕')).toBe(crc32(Buffer.from('Café ☕', 'utf8')));
    expect(crc32('Café ☕')).not.toBe(crc32(Buffer.from('Café ☕', 'latin1')));
  });

  (zlibCrc32 ? it : it.skip)('equals zlib.crc32 on arbitrary bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 4096 }), (bytes) => {
        expect(crc32(bytes)).toBe(zlibCrc32!(bytes));
      }),
    );
  });
});
