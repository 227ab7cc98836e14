/** How long a provider keeps re-sending a delivery that was not acknowledged. */
export interface ProviderRetryHorizon {
  /** The provider's name as people know it. */
  readonly provider: string;
  /** Days, rounded up, from the first delivery to the last retry. */
  readonly days: number;
  /** What the provider documents. */
  readonly documented: string;
}

/**
 * The shortest dedup window the package allows, in days: longer than the retry horizon of every
 * provider below but Adyen, with room for a manual resend from a provider's dashboard.
 */
export const MIN_DEDUP_DAYS = 7;

/**
 * Retry horizons by provider kind, as the providers document them. A processed event's dedup key
 * must outlive them: a re-delivery that arrives after its key is gone is stored as a new event
 * and runs the handlers again.
 */
export const PROVIDER_RETRY_HORIZONS: Readonly<Record<string, ProviderRetryHorizon>> = {
  adyen: {
    provider: 'Adyen',
    days: 30,
    documented: '3 quick retries, then a retry queue for up to 30 days',
  },
  stripe: {
    provider: 'Stripe',
    days: 3,
    documented: 'live mode retries with exponential backoff for up to 3 days',
  },
  standard: {
    provider: 'Standard Webhooks',
    days: 4,
    documented: "the specification's example schedule spans 75 h 35 min (Svix: about 27.6 h)",
  },
  paypal: { provider: 'PayPal', days: 3, documented: 'up to 25 retries over 3 days' },
  paddle: { provider: 'Paddle', days: 3, documented: 'live mode: up to 60 retries over 3 days' },
  square: {
    provider: 'Square',
    days: 3,
    documented: 'retries for up to 24 hours (another version of the docs says 72 hours)',
  },
  tbank: { provider: 'T-Bank', days: 1, documented: 'once an hour for 24 hours' },
  yookassa: { provider: 'YooKassa', days: 1, documented: 'keeps delivering for 24 hours' },
  yoomoney: {
    provider: 'YooMoney',
    days: 1,
    documented: 'three attempts: immediately, after 10 minutes and after an hour',
  },
  sber: {
    provider: 'Sber',
    days: 1,
    documented: 'every 30 s until answered or 3 consecutive failures (gateway default)',
  },
};

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
    const horizon = Object.hasOwn(PROVIDER_RETRY_HORIZONS, source.kind)
      ? PROVIDER_RETRY_HORIZONS[source.kind]
      : undefined;
    if (horizon && (!longest || horizon.days > longest.days)) {
      longest = { ...horizon, source };
    }
  }
  return { days: Math.max(MIN_DEDUP_DAYS, longest?.days ?? 0), longest };
}
