import type { ColumnMetadata } from 'typeorm/metadata/ColumnMetadata';
import { fitColumn } from './column-fit';

/** Column types whose values `fittedTo()` fits (with their aliases); everything else is written as it is. */
const TEXT_TYPES: readonly unknown[] = [
  String,
  'varchar',
  'character varying',
  'text',
  'char',
  'character',
  'nvarchar',
];

/**
 * The value written to one of the package's columns: a string fitted to the column's length
 * (see `fitColumn()`), anything else as it is.
 */
export function fittedTo(column: ColumnMetadata, value: unknown): unknown {
  if (typeof value !== 'string' || !TEXT_TYPES.includes(column.type)) {
    return value;
  }
  return fitColumn(value, column.length === '' ? undefined : Number(column.length));
}
