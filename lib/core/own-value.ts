/**
 * `table[key]` when the table itself holds `key`, otherwise undefined. Keys taken from a delivery
 * (an event type, a status, a currency code) go through it, so `constructor`, `toString` or
 * `__proto__` find nothing instead of what every object inherits.
 * @example ownValue({ 'charge.refunded': 'refund.succeeded' }, 'constructor') // undefined
 */
export function ownValue<T>(table: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(table, key) ? table[key] : undefined;
}
