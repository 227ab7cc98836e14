/** Label value used once a label has seen as many distinct values as it may. */
export const OTHER_LABEL_VALUE = 'other';

/** Longest label value kept; longer values are cut. */
const MAX_VALUE_LENGTH = 100;

/**
 * Keeps a metric label's cardinality bounded: the first `limit` distinct values pass through,
 * later new ones are reported as `other`. Event types and handler outcomes come from signed
 * payloads and handler code, so they are bounded in practice; this is the guarantee.
 */
export class BoundedLabel {
  private readonly seen = new Set<string>();

  constructor(private readonly limit: number) {}

  /** The value to report for `raw`. */
  value(raw: string | null | undefined): string {
    const value = (raw ?? '').slice(0, MAX_VALUE_LENGTH);
    if (this.seen.has(value)) {
      return value;
    }
    if (this.seen.size >= this.limit) {
      return OTHER_LABEL_VALUE;
    }
    this.seen.add(value);
    return value;
  }
}
