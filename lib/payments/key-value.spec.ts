import type { ColumnMetadata } from 'typeorm/metadata/ColumnMetadata';
import { keyValueFor } from './key-value';

const column = (type: ColumnMetadata['type'], length = '') => ({ type, length }) as ColumnMetadata;

describe('keyValueFor', () => {
  it('fits text to a text key as the inbox fits its own columns', () => {
    expect(keyValueFor(column('varchar', '255'), 'order-1', 'postgres')).toBe('order-1');
    expect(keyValueFor(column('varchar', '16'), 'a\u0000b', 'postgres')).toMatch(
      /^a\uFFFDb~[0-9a-f]{8}$/,
    );
    expect(keyValueFor(column(String, '8'), 'order-123456', 'better-sqlite3')).toMatch(/^ord~/);
    expect(keyValueFor(column('text'), 'x\uD800', 'postgres')).toBe('x\uFFFD');
  });

  it('finds no row for text that is no whole number at an integer key', () => {
    for (const id of ['a\u0000b', '4.2', '', ' 42', '0x10']) {
      expect(keyValueFor(column('integer'), id, 'postgres')).toBeUndefined();
    }
    expect(keyValueFor(column('integer'), '42', 'postgres')).toBe('42');
    expect(keyValueFor(column(Number), 42, 'postgres')).toBe(42);
    expect(keyValueFor(column('int'), 1.5, 'postgres')).toBeUndefined();
  });

  it("keeps to each integer type's range, and to SQLite's 64 bits whatever the declared type", () => {
    expect(keyValueFor(column('integer'), '2147483648', 'postgres')).toBeUndefined();
    expect(keyValueFor(column('integer'), '-2147483648', 'postgres')).toBe('-2147483648');
    expect(keyValueFor(column('smallint'), 40000, 'postgres')).toBeUndefined();
    expect(keyValueFor(column('bigint'), '9223372036854775807', 'postgres')).toBe(
      '9223372036854775807',
    );
    expect(keyValueFor(column('bigint'), '9223372036854775808', 'postgres')).toBeUndefined();
    expect(keyValueFor(column('integer'), '2147483648', 'better-sqlite3')).toBe('2147483648');
  });

  it('finds no row for text that is no uuid at a uuid key', () => {
    const uuid = '5f0c7b52-3f0e-4d5c-9d7e-2f1f3c1b8a11';
    expect(keyValueFor(column('uuid'), uuid, 'postgres')).toBe(uuid);
    expect(keyValueFor(column('uuid'), `${uuid}\u0000`, 'postgres')).toBeUndefined();
    expect(keyValueFor(column('uuid'), 7, 'postgres')).toBeUndefined();
  });
});
