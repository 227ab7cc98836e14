import { WebhookConfigurationError } from '../core/webhook-errors';
import type { WebhookRetentionOptions } from './webhooks-module-options.interface';
import { dedupFloorFor, RetentionSource } from '../providers/provider-retry-horizons';
import { DEDUP_DAYS_TOO_LOW, INVALID_RETENTION_OPTION } from './retention.messages';

/** Retention settings with every default filled in. */
export interface ResolvedRetentionOptions {
  /** Days a processed or ignored event keeps its raw body and headers. */
  readonly processedDays: number;
  /** Days a processed or ignored event (its dedup key) is kept at least. */
  readonly dedupDays: number;
  /** Milliseconds between scheduled runs; 0 when there is no schedule. */
  readonly intervalMs: number;
  /** Rows changed per transaction. */
  readonly batchSize: number;
}

/**
 * Days a settled event, and so its dedup key, is kept at least: the longer of `processedDays`
 * and `dedupDays`. A delivery of an event older than this could not be told from a replay.
 */
export function dedupHorizonDays(options: ResolvedRetentionOptions): number {
  return Math.max(options.processedDays, options.dedupDays);
}

/** Default of `retention.processedDays`. */
export const DEFAULT_PROCESSED_DAYS = 30;
/** Default of `retention.intervalMs`: one hour. */
export const DEFAULT_RETENTION_INTERVAL_MS = 3_600_000;
/** Default of `retention.batchSize`. */
export const DEFAULT_RETENTION_BATCH_SIZE = 500;
const MAX_BATCH_SIZE = 10_000;

/** How an option is named in error messages: a module option, or a CLI flag. */
export type RetentionOptionLabel = (field: keyof WebhookRetentionOptions) => string;

const moduleOption: RetentionOptionLabel = (field) =>
  `WebhooksModule option \`retention.${field}\``;

function integer(
  label: string,
  value: number | undefined,
  fallback: number,
  min: number,
  max = Number.MAX_SAFE_INTEGER,
): number {
  const resolved = value ?? fallback;
  if (!Number.isSafeInteger(resolved) || resolved < min || resolved > max) {
    const rule = max === Number.MAX_SAFE_INTEGER ? `at least ${min}` : `from ${min} to ${max}`;
    throw new WebhookConfigurationError(
      INVALID_RETENTION_OPTION(label, `an integer ${rule}`, value),
    );
  }
  return resolved;
}

/**
 * Fills in the retention defaults and checks them. The dedup window may not be shorter than
 * the longest retry horizon of the providers in `sources` (and never below 7 days).
 * @param sources the provider kinds whose events are kept: the configured endpoints, or the
 * kinds found in the inbox.
 * @throws WebhookConfigurationError naming the option, the rule and the provider behind it.
 */
export function resolveRetentionOptions(
  options: WebhookRetentionOptions | undefined,
  sources: readonly RetentionSource[],
  label: RetentionOptionLabel = moduleOption,
): ResolvedRetentionOptions {
  if (options !== undefined && (options === null || typeof options !== 'object')) {
    throw new WebhookConfigurationError(
      INVALID_RETENTION_OPTION(
        'WebhooksModule option `retention`',
        'an object such as { processedDays: 30 }',
        options,
      ),
    );
  }
  const floor = dedupFloorFor(sources);
  const dedupDays = options?.dedupDays ?? floor.days;
  if (!Number.isSafeInteger(dedupDays) || dedupDays < floor.days) {
    throw new WebhookConfigurationError(
      DEDUP_DAYS_TOO_LOW(label('dedupDays'), floor, options?.dedupDays),
    );
  }
  const intervalMs = integer(
    label('intervalMs'),
    options?.intervalMs,
    DEFAULT_RETENTION_INTERVAL_MS,
    0,
  );
  if (intervalMs > 0 && intervalMs < 1000) {
    throw new WebhookConfigurationError(
      INVALID_RETENTION_OPTION(label('intervalMs'), '0 (no schedule) or at least 1000', intervalMs),
    );
  }
  return {
    processedDays: integer(
      label('processedDays'),
      options?.processedDays,
      DEFAULT_PROCESSED_DAYS,
      1,
    ),
    dedupDays,
    intervalMs,
    batchSize: integer(
      label('batchSize'),
      options?.batchSize,
      DEFAULT_RETENTION_BATCH_SIZE,
      1,
      MAX_BATCH_SIZE,
    ),
  };
}
