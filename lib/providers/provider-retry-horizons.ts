import { descriptorOfKind, PROVIDER_DESCRIPTORS } from './descriptors';
import { RetryHorizon } from './provider-descriptor.interface';

/** How long a provider keeps re-sending a delivery that was not acknowledged. */
export interface ProviderRetryHorizon extends RetryHorizon {
  /** The provider's name as people know it. */
  readonly provider: string;
}

/**
 * The shortest dedup window the package allows, in days: longer than the retry horizon of every
 * built-in provider but Adyen, with room for a manual resend from a provider's dashboard.
 */
export const MIN_DEDUP_DAYS = 7;

/**
 * Retry horizons by provider kind, as the providers document them (read from each provider's
 * descriptor). A processed event's dedup key must outlive them: a re-delivery that arrives after
 * its key is gone is stored as a new event and runs the handlers again.
 */
export const PROVIDER_RETRY_HORIZONS: Readonly<Record<string, ProviderRetryHorizon>> =
  Object.fromEntries(
    PROVIDER_DESCRIPTORS.flatMap(({ kind, name, retryHorizon }) =>
      retryHorizon ? [[kind, { provider: name, ...retryHorizon }]] : [],
    ),
  );

/** Where a provider kind was seen: an endpoint, or (without a name) events in the inbox. */
export interface RetentionSource {
  /** Provider kind (`WebhookProvider.kind`). */
  readonly kind: string;
  /** Endpoint name, when the kind comes from the module's configuration. */
  readonly endpoint?: string;
}

/** The shortest dedup window allowed for some providers, and the reason for it. */
export interface DedupFloor {
  /** Days. */
  readonly days: number;
  /** The longest retry horizon among the providers, with where it was seen; none when unknown. */
  readonly longest?: ProviderRetryHorizon & { readonly source: RetentionSource };
}

/**
 * The shortest dedup window for events of these providers: {@link MIN_DEDUP_DAYS}, or the
 * longest documented retry horizon among them when that is longer.
 * @example
 * dedupFloorFor([{ kind: 'stripe' }, { kind: 'adyen', endpoint: 'adyen' }]).days; // 30
 */
export function dedupFloorFor(sources: readonly RetentionSource[]): DedupFloor {
  let longest: DedupFloor['longest'];
  for (const source of sources) {
    const descriptor = descriptorOfKind(source.kind);
    const horizon = descriptor?.retryHorizon;
    if (descriptor && horizon && (!longest || horizon.days > longest.days)) {
      longest = { provider: descriptor.name, ...horizon, source };
    }
  }
  return { days: Math.max(MIN_DEDUP_DAYS, longest?.days ?? 0), longest };
}
