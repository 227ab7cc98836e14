import { randomFillSync } from 'node:crypto';

/** Random bytes drawn at once and handed out 10 at a time, so an id costs no system call. */
const POOL_SIZE = 10 * 256;
const pool = Buffer.alloc(POOL_SIZE);
let offset = POOL_SIZE;

/**
 * A time-ordered UUID (version 7, RFC 9562): 48 bits of Unix time in milliseconds, then 74
 * random bits. Ids made later sort after earlier ones (within a millisecond, in any order), so a
 * B-tree index on them takes each new id at its right edge: a large inbox adds rows without
 * reading and splitting pages all over its primary key, as random (version 4) ids make it do.
 */
export function timeOrderedId(now: number = Date.now()): string {
  if (offset === POOL_SIZE) {
    randomFillSync(pool);
    offset = 0;
  }
  const bytes = Buffer.allocUnsafe(16);
  bytes.writeUIntBE(now, 0, 6);
  pool.copy(bytes, 6, offset, offset + 10);
  offset += 10;
  bytes[6] = 0x70 | (bytes[6] & 0x0f);
  bytes[8] = 0x80 | (bytes[8] & 0x3f);
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
