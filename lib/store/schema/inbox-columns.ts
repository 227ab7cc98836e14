/** The columns a new inbox row is written with, in the order `record()` binds their values. */
export const INSERT_COLUMNS = [
  'id',
  'endpoint',
  'tenant',
  'provider',
  'event_id',
  'type',
  'native_type',
  'payment_ref',
  'merchant_ref',
  'amount',
  'currency',
  'payment_status',
  'occurred_at',
  'received_at',
  'raw_body',
  'body_sha256',
  'headers',
  'status',
  'attempts',
  'next_attempt_at',
  'processed_at',
  'delivery_count',
  'same_event',
] as const;

/** Where the tenant and the key shared by an event's copies sit in `INSERT_COLUMNS` order. */
export const SAME_EVENT_POSITIONS = (['tenant', 'same_event'] as const).map((column) =>
  INSERT_COLUMNS.indexOf(column),
);

/** Where the dedup key's values (endpoint, tenant, event id) sit in `INSERT_COLUMNS` order. */
export const DEDUP_KEY_POSITIONS = (['endpoint', 'tenant', 'event_id'] as const).map((column) =>
  INSERT_COLUMNS.indexOf(column),
);

/** The inbox's dedup key as one string, from an event's values in `INSERT_COLUMNS` order. */
export function dedupKeyOf(values: readonly unknown[]): string {
  return JSON.stringify(DEDUP_KEY_POSITIONS.map((i) => values[i]));
}

/** The same key from a row's columns, as an upsert returns them. */
export function dedupKeyOfRow(row: {
  readonly endpoint: string;
  readonly tenant: string;
  readonly event_id: string;
}): string {
  return JSON.stringify([row.endpoint, row.tenant, row.event_id]);
}
