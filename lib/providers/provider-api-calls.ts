import { ExpiringMap } from '../core/expiring-map';
import { TokenBucket } from '../core/token-bucket';
import {
  ProviderStatusError,
  WebhookConfigurationError,
  WebhookVerificationError,
} from '../core/webhook-errors';
import {
  apiBudgetSpentMessage,
  invalidApiCallBudgetMessage,
  sharedAnswerMessage,
} from './provider-api-calls.messages';

const DEFAULT_PER_MINUTE = 300;
const DEFAULT_BURST = 60;
/**
 * How long a payment found is remembered: a delivery about it within that time is refused (503)
 * rather than stored from a read that may predate the change it announces. Short, because a
 * genuine change that lands in it waits for the provider's next retry.
 */
const FOUND_TTL_MS = 2_000;
/**
 * How long "not found" is remembered: what the API does not know for these credentials (another
 * account or mode, a made-up id) stays unknown, and is answered as a fresh "not found" would be.
 */
const NOT_FOUND_TTL_MS = 30_000;
/** The most answers remembered per endpoint: a made-up id takes one, a few bytes each. */
const MAX_ANSWERS = 1_000;

/**
 * A budget of calls to the provider's API made to confirm deliveries: refilled at `perMinute`,
 * with `burst` calls that can be made at once. Past it, a delivery that needs a call is answered
 * 503 with `Retry-After` (decision `api_budget_spent`), nothing is stored, and the provider sends
 * it again later: nothing is lost, it is late.
 *
 * Only the calls a delivery would make count (Mollie's classic webhooks, Mercado Pago's payment
 * notifications). Deliveries about one payment at the same time share one call, and a payment's
 * answer is remembered briefly (2 s when found, 30 s when the API does not know it), so repeats
 * of one id cost one call; a flood of made-up ids is what the budget bounds. It is kept per
 * process: N app instances may make N times as many calls.
 */
export interface ApiCallBudgetOptions {
  /**
   * Calls refilled per minute. 300 (5 a second, 18000 an hour) is above the change rate of a
   * busy shop's payments, each of which takes one call per change notified; a flood of made-up
   * ids from a sender that is not the provider is held to it.
   * @default 300
   */
  perMinute?: number;
  /**
   * Calls that can be made at once on top of the rate, for a spike of genuine notifications
   * (a sale's payments completing together). 300 made-up ids sent in 2 s make at most
   * `burst` + 10 calls.
   * @default 60
   */
  burst?: number;
}

/** What a provider's deliveries call its API with. */
export interface ProviderApiCallsSettings {
  /** The endpoint's name, as the refusal's reason gives it. */
  readonly endpoint: string;
  /** The provider kind, as startup errors give it. */
  readonly kind: string;
  /** The provider as its users name it, e.g. `'Mollie'`. */
  readonly provider: string;
  /** The endpoint's `apiCallBudget` option, checked here. */
  readonly budget?: ApiCallBudgetOptions;
}

/** What a lookup told the delivery that asked. */
export type ApiLookup<T> =
  /** The delivery's own call found the resource: the one answer a delivery may store. */
  | { readonly kind: 'fetched'; readonly value: T }
  /**
   * The API does not know the resource; `sharedAgeMs` when another delivery's call said so,
   * that many milliseconds ago.
   */
  | { readonly kind: 'not_found'; readonly sharedAgeMs?: number };

/** What is remembered of a call's answer: whether it found the resource, and when. */
interface Answer {
  readonly found: boolean;
  readonly answeredAt: number;
}

/**
 * The calls one endpoint makes to its provider's API to confirm deliveries: one call at a time
 * per resource (deliveries about it meanwhile share it), its answer remembered briefly, and all
 * of them within the endpoint's budget. Only a delivery whose own call found the resource gets
 * it: one that met another delivery's answer is refused (503, `unconfirmed`) when the resource
 * was found, as that answer may predate the change it announces, and is told "not found" when it
 * was not.
 */
export class ProviderApiCalls {
  private readonly budget: TokenBucket;
  private readonly answers: ExpiringMap<string, Answer>;
  private readonly running = new Map<string, Promise<Answer>>();
  private readonly perMinute: number;

  /**
   * @param now the time in milliseconds.
   * @throws WebhookConfigurationError when `apiCallBudget` cannot work.
   */
  constructor(
    private readonly settings: ProviderApiCallsSettings,
    private readonly now: () => number = Date.now,
  ) {
    this.perMinute = budgetField(settings, 'perMinute', DEFAULT_PER_MINUTE);
    const burst = budgetField(settings, 'burst', DEFAULT_BURST);
    this.budget = new TokenBucket(this.perMinute / 60, burst, now);
    this.answers = new ExpiringMap(MAX_ANSWERS, now);
  }

  /**
   * Looks `id` up with `fetch` (a `ProviderStatusError` `not_found` meaning "not found"), unless
   * another delivery's call has just answered or is answering for it.
   * @param subject what is looked up, for reasons: `payment tr_…`.
   * @throws WebhookVerificationError `api_budget_spent` when a call is needed and the budget is
   * spent; `unconfirmed` when another delivery's call found the resource; what `fetch` throws
   * when the call (this delivery's or the one it joined) fails otherwise.
   */
  async lookup<T>(id: string, subject: string, fetch: () => Promise<T>): Promise<ApiLookup<T>> {
    const remembered = this.answers.get(id);
    if (remembered !== undefined) {
      return this.shared(subject, remembered);
    }
    const running = this.running.get(id);
    if (running !== undefined) {
      return this.shared(subject, await running);
    }
    // NOTE: from the checks to running.set() nothing awaits, so one call starts per id.
    this.spend(subject);
    const call = fetch().then(
      (value): ApiLookup<T> => ({ kind: 'fetched', value }),
      (error: unknown): ApiLookup<T> => {
        if (error instanceof ProviderStatusError && error.failure === 'not_found') {
          return { kind: 'not_found' };
        }
        throw error;
      },
    );
    const answer = call.then((lookup) => this.remember(id, lookup.kind === 'fetched'));
    this.running.set(id, answer);
    // NOTE: the deliveries that joined the call handle its failure; this only forgets it.
    void answer.catch(() => undefined).finally(() => this.running.delete(id));
    return call;
  }

  /** What another delivery's answer tells this one. */
  private shared<T>(subject: string, answer: Answer): ApiLookup<T> {
    const ageMs = Math.max(0, this.now() - answer.answeredAt);
    if (!answer.found) {
      return { kind: 'not_found', sharedAgeMs: ageMs };
    }
    throw new WebhookVerificationError(
      'unconfirmed',
      sharedAnswerMessage(this.settings.provider, subject, ageMs),
    );
  }

  /** Takes a call from the budget. @throws WebhookVerificationError when it is spent. */
  private spend(subject: string): void {
    if (this.budget.tryTake()) {
      return;
    }
    const retryAfterMs = Math.max(1_000, this.budget.msUntil());
    const { endpoint, provider } = this.settings;
    const budget = { perMinute: this.perMinute, burst: this.budget.capacity };
    throw new WebhookVerificationError(
      'api_budget_spent',
      apiBudgetSpentMessage(endpoint, provider, subject, budget, Math.ceil(retryAfterMs / 1000)),
      retryAfterMs,
    );
  }

  private remember(id: string, found: boolean): Answer {
    const answer = { found, answeredAt: this.now() };
    this.answers.set(id, answer, found ? FOUND_TTL_MS : NOT_FOUND_TTL_MS);
    return answer;
  }
}

/** A field of `apiCallBudget`: a whole number of calls, 1 or more. */
function budgetField(
  { endpoint, kind, budget }: ProviderApiCallsSettings,
  field: 'perMinute' | 'burst',
  fallback: number,
): number {
  if (budget !== undefined && (typeof budget !== 'object' || budget === null)) {
    throw new WebhookConfigurationError(invalidApiCallBudgetMessage(endpoint, kind, budget));
  }
  const value = budget?.[field] ?? fallback;
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new WebhookConfigurationError(
      invalidApiCallBudgetMessage(endpoint, kind, budget, { field, value, fallback }),
    );
  }
  return value;
}
