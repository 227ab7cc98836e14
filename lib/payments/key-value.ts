import type { ColumnMetadata } from 'typeorm/metadata/ColumnMetadata';
import { fittedTo } from '../store/schema/fitted-value';

/** The range each integer column type holds, as decimal text bounds. */
const INTEGER_BOUNDS: ReadonlyMap<string, bigint> = new Map([
  ['smallint', 2n ** 15n],
  ['int2', 2n ** 15n],
  ['int', 2n ** 31n],
  ['integer', 2n ** 31n],
  ['int4', 2n ** 31n],
  ['bigint', 2n ** 63n],
  ['int8', 2n ** 63n],
]);

const SQLITE = new Set([
  'better-sqlite3',
  'sqlite',
  'capacitor',
  'cordova',
  'expo',
  'nativescript',
  'react-native',
  'sqljs',
]);
const INTEGER_TEXT = /^[+-]?\d{1,20}$/;
const UUID_TEXT = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;

/** A column type as one lower-case name: `String` and `Number` are TypeORM's defaults for them. */
function typeName(column: ColumnMetadata): string {
  if (column.type === String) {
    return 'varchar';
  }
  if (column.type === Number) {
    return 'integer';
  }
  return typeof column.type === 'string' ? column.type.toLowerCase() : '';
}

function integerFits(id: string | number, bound: bigint): boolean {
  if (typeof id === 'number') {
    return Number.isSafeInteger(id) && BigInt(id) >= -bound && BigInt(id) < bound;
  }
  if (!INTEGER_TEXT.test(id)) {
    return false;
  }
  const value = BigInt(id);
  return value >= -bound && value < bound;
}

/**
 * The value a row's key is looked up by, in a form the key's column can hold, or `undefined`
 * when no row can have `id` (text that is no whole number for an integer column, or no uuid for
 * a uuid column; a number out of the column's range): the database is then never sent what it
 * would refuse with an error, which would fail the handler on every attempt for content the
 * provider signed.
 *
 * Text is fitted as the package fits its own columns (`fitToColumn()`): a NUL or an unpaired
 * UTF-16 half replaced, a value longer than the column shortened with its digest, so a row keyed
 * by `fitToColumn(event.merchantRef, length)` is found by the raw value too. Other column types
 * get `id` as it is.
 */
export function keyValueFor(
  column: ColumnMetadata,
  id: string | number,
  database: string,
): string | number | undefined {
  const type = typeName(column);
  // NOTE: every SQLite integer holds 64 bits, whatever the declared type.
  const bound =
    INTEGER_BOUNDS.has(type) && SQLITE.has(database) ? 2n ** 63n : INTEGER_BOUNDS.get(type);
  if (bound !== undefined) {
    return integerFits(id, bound) ? id : undefined;
  }
  if (type === 'uuid') {
    return typeof id === 'string' && UUID_TEXT.test(id) ? id : undefined;
  }
  return fittedTo(column, id) as string | number;
}
