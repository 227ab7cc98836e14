import { randomBytes, randomUUID } from 'node:crypto';
import { DISK_FULL } from './write-check.messages';
import { NewWebhookEvent } from '../ports/inbox-writer.port';

/** PostgreSQL's SQLSTATE for a full disk (`disk_full`). */
const POSTGRES_DISK_FULL = '53100';

/** Body of the write check's probe row: a few pages, as a delivery with its indexes needs. */
const PROBE_BODY_BYTES = 16 * 1024;

interface ErrorShape {
  readonly code?: unknown;
  readonly message?: unknown;
  readonly driverError?: unknown;
  readonly cause?: unknown;
}

/**
 * How `error` says the disk is full, or undefined when it does not: SQLite's `SQLITE_FULL`,
 * Node's `ENOSPC`, or PostgreSQL's `53100 disk_full` (also when TypeORM wraps it, or it is the
 * cause of another error).
 */
export function diskFullCause(error: unknown): string | undefined {
  let cause: string | undefined;
  // NOTE: the innermost match wins: the driver's own words, not TypeORM's copy of them.
  for (let e = error as ErrorShape | undefined, depth = 0; e && depth < 5; depth += 1) {
    const message = typeof e.message === 'string' ? e.message : '';
    if (e.code === 'SQLITE_FULL' || e.code === 'ENOSPC') {
      cause = `${e.code} (${message})`;
    } else if (e.code === POSTGRES_DISK_FULL || /no space left on device/i.test(message)) {
      cause = `PostgreSQL ${POSTGRES_DISK_FULL} disk_full (${message})`;
    }
    e = (e.driverError ?? e.cause) as ErrorShape | undefined;
  }
  return cause;
}

/**
 * Remembers that a write of a delivery failed for want of space, until one is stored again or
 * a real write goes through: a write over no row (the usual write check) needs no space, and
 * would report the store healthy while every delivery is answered 503.
 */
export class DiskFullWatch {
  private seen?: { readonly at: Date; readonly cause: string };

  /** Notes the failure of a delivery's write. */
  failed(error: unknown): void {
    const cause = diskFullCause(error);
    if (cause !== undefined) {
      this.seen = { at: this.seen?.at ?? new Date(), cause };
    }
  }

  /** A delivery was stored: the disk has room again. */
  stored(): void {
    this.seen = undefined;
  }

  /**
   * While a full disk is remembered, runs `probe` (a committed write that needs room: see
   * {@link probeEvent}); undefined once it goes through, else why writes fail.
   * @throws what `probe` throws when it is not a full disk.
   */
  async check(probe: () => Promise<void>): Promise<string | undefined> {
    const seen = this.seen;
    if (!seen) {
      return undefined;
    }
    try {
      await probe();
    } catch (error) {
      const cause = diskFullCause(error);
      if (cause === undefined) {
        throw error;
      }
      this.seen = { at: seen.at, cause };
      return DISK_FULL(cause, seen.at);
    }
    if (this.seen === seen) {
      this.seen = undefined;
    }
    return undefined;
  }
}

/**
 * The row the probe writes and deletes again in one transaction: never seen by any reader, it
 * makes the database write pages to disk at the commit as a delivery would.
 */
export function probeEvent(): NewWebhookEvent {
  const receivedAt = new Date();
  return {
    endpoint: '',
    provider: '',
    eventId: `write-check:${randomUUID()}`,
    type: '',
    nativeType: '',
    paymentRef: null,
    merchantRef: null,
    amount: null,
    currency: null,
    paymentStatus: null,
    occurredAt: null,
    receivedAt,
    // NOTE: random, so PostgreSQL cannot compress it into fewer pages than a delivery takes.
    rawBody: randomBytes(PROBE_BODY_BYTES / 2).toString('hex'),
    bodySha256: '',
    headers: {},
    status: 'ignored',
  };
}
