import { fitColumn } from '../store/schema/column-fit';

/** The package's shortest text column (`currency varchar(8)`): the digest needs room. */
const MIN_COLUMN_LENGTH = 8;

/**
 * A value of an event made storable in a text column of your own, as the package stores it in
 * its own columns: the value itself when it fits in `maxLength` characters and holds no
 * character PostgreSQL refuses (NUL, an unpaired UTF-16 half); otherwise its beginning (such
 * characters replaced by U+FFFD), `~` and the first hex digits of the SHA-256 of the whole value.
 * The same value gives the same result every time. Handlers get the event's values as the inbox
 * stored them, already fitted to 255 characters (`event.eventId` is exactly the row's
 * `webhook_events.event_id`); fit a value again for a shorter column of your own, or one read
 * from `event.payload`, which keeps every byte the provider sent.
 * @param maxLength the column's length in characters, 8 or more; leave it out for `text`.
 * @throws RangeError when `maxLength` is not a whole number of 8 or more.
 * @example
 * await ctx.manager.insert(Shipment, { orderId, reference: fitToColumn(event.eventId, 64) });
 */
export function fitToColumn(value: string, maxLength?: number): string {
  if (
    maxLength !== undefined &&
    (!Number.isSafeInteger(maxLength) || maxLength < MIN_COLUMN_LENGTH)
  ) {
    throw new RangeError(
      `fitToColumn(value, maxLength): maxLength must be the column's length, a whole number of ` +
        `${MIN_COLUMN_LENGTH} or more (got ${String(maxLength)}); leave it out for a text column.`,
    );
  }
  return fitColumn(String(value), maxLength);
}
