import { DedupFloor, MIN_DEDUP_DAYS, RetentionSource } from '../providers/provider-retry-horizons';

/** Error texts of the retention job. Each one says what is wrong and how to fix it. */

function where(source: RetentionSource): string {
  return source.endpoint === undefined
    ? `events of ${source.kind} are in the inbox`
    : `endpoint "${source.endpoint}" is ${source.kind}`;
}

/** Why dedup keys must be kept `floor.days` days, naming the provider behind it. */
export const DEDUP_FLOOR_REASON = (floor: DedupFloor): string =>
  floor.longest
    ? floor.longest.days > MIN_DEDUP_DAYS
      ? `${where(floor.longest.source)}, and ${floor.longest.provider} re-sends a delivery for up to ` +
        `${floor.longest.days} days (${floor.longest.documented})`
      : `the package keeps dedup keys at least ${MIN_DEDUP_DAYS} days; the longest retry horizon ` +
        `among the providers here is ${floor.longest.provider}'s ${floor.longest.days} day(s) ` +
        `(${floor.longest.documented}), and ${MIN_DEDUP_DAYS} days also covers a manual resend`
    : `the package keeps dedup keys at least ${MIN_DEDUP_DAYS} days, longer than any provider's ` +
      'retry horizon but Adyen (30 days)';

/** What happens when a dedup key is deleted too early. */
export const EARLY_DEDUP_DELETE =
  'A re-delivery that arrives after its dedup key is deleted is stored as a new event and runs ' +
  'the handlers again.';

/** A dedup window shorter than the providers' retry horizon. */
export const DEDUP_DAYS_TOO_LOW = (option: string, floor: DedupFloor, value: unknown) =>
  `${option} must be at least ${floor.days} (got ${JSON.stringify(value)}): ` +
  `${DEDUP_FLOOR_REASON(floor)}. ${EARLY_DEDUP_DELETE} Set ${option} to ${floor.days} or more, ` +
  'or leave it out.';

/** A retention option outside its range. */
export const INVALID_RETENTION_OPTION = (option: string, rule: string, value: unknown) =>
  `${option} must be ${rule} (got ${JSON.stringify(value)}).`;

/**
 * A delivery whose signed event time is older than dedup keys are kept: it could be a replay
 * of a delivery whose key is already deleted.
 */
export const EVENT_OLDER_THAN_DEDUP = (ageSeconds: number, horizonDays: number) =>
  `The event happened ${(ageSeconds / 86_400).toFixed(1)} days ago, by the time its signature ` +
  `covers; dedup keys are kept ${horizonDays} days, so a delivery this old cannot be told from a ` +
  "replay of one whose key is gone. The provider's own retries end long before; if this is a " +
  'resend you want, raise `retention.dedupDays` above its age, or replay the stored event.';
