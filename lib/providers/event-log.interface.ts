/** The window of a provider's event log to read: events created from `since` until `until`. */
export interface EventLogWindow {
  /** The earliest creation time asked for (inclusive). */
  readonly since: Date;
  /** The latest creation time asked for (inclusive). */
  readonly until: Date;
}

/** One event read back from a provider's event log. */
export interface LoggedEvent {
  /**
   * The event as its delivery would carry it: the text the endpoint's `normalize()` reads, so
   * it is stored under the same dedup key its delivery would have had.
   */
  readonly body: string;
  /** Headers `normalize()` reads besides the body, as a delivery would carry them. */
  readonly headers?: Readonly<Record<string, string>>;
  /** When the provider created the event, as its log says. */
  readonly createdAt: Date;
}

/** One page of a provider's event log. */
export interface EventLogPage {
  /** The page's events, in the order the provider lists them. */
  readonly events: readonly LoggedEvent[];
  /** Where the next page starts (the provider's own cursor, as text); null after the last page. */
  readonly next: string | null;
}

/**
 * A provider's event log (Stripe's Events API, PayPal's webhook events, …), read with the
 * endpoint's API credentials to get back events whose deliveries never arrived. One request per
 * page, no retries: the recovery that reads it retries, from the page it had reached.
 */
export interface ProviderEventLog {
  /** Provider kind, as on the endpoint's provider. */
  readonly kind: string;
  /** What the log is, as its provider names it (`'Stripe Events API (v1)'`), for reports. */
  readonly source: string;
  /** How far back the provider keeps events, in milliseconds: an older window is refused. */
  readonly retentionMs: number;
  /**
   * Reads the page of `window` that `cursor` points at (the first page for null).
   * @throws ProviderStatusError when the provider cannot answer (`unavailable` for 429 and 5xx,
   * which the recovery retries; `unauthorized` when the credentials cannot read the log).
   */
  readPage(window: EventLogWindow, cursor: string | null): Promise<EventLogPage>;
}
