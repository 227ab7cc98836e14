/**
 * Reads a date column as the drivers return it in raw results: a Date (pg) or TypeORM's UTC
 * text without a zone (SQLite). Null for null or text that is no date.
 */
export function dateOf(value: unknown): Date | null {
  if (value === null || value === undefined) {
    return null;
  }
  if (value instanceof Date) {
    return value;
  }
  const text = String(value);
  const date = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(\.\d+)?$/.test(text)
    ? new Date(`${text.replace(' ', 'T')}Z`)
    : new Date(text);
  return Number.isNaN(date.getTime()) ? null : date;
}
