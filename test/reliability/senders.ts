import { Random } from './random';

/** The providers the simulator plays. */
export type ProviderKind = 'stripe' | 'qvard' | 'tbank';

/** How fast each simulated provider's clock runs, relative to the real provider. */
export type Compression = Readonly<Record<ProviderKind, number>>;

/**
 * How one provider sends: when it retries, what it counts as delivered, how long it waits for an
 * answer. The schedule keeps the real provider's shape; its clock runs `compression` times faster.
 */
export interface ProviderSender {
  readonly kind: ProviderKind;
  /** The shop's endpoint name for this provider (`POST /webhooks/<endpoint>`). */
  readonly endpoint: string;
  /** How many times faster than the real provider this sender's clock runs. */
  readonly compression: number;
  /** How long one attempt may take before the sender gives up on it, in real ms. */
  readonly timeoutMs: number;
  /** The real provider's rule, for the report. */
  readonly rule: string;
  /**
   * Real ms to wait after failed attempt `attempt` (from 1) before the next one;
   * undefined when the provider gives up.
   */
  nextDelayMs(attempt: number, random: Random): number | undefined;
  /** Whether this answer ends the delivery, as the real provider decides it. */
  accepts(status: number, body: string): boolean;
}

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** Qvard: five attempts in about six minutes; only exactly 200 counts; redirects not followed. */
const QVARD_DELAYS = [30 * SECOND, 1 * MINUTE, 2 * MINUTE, 150 * SECOND];

/** Stripe (live mode): exponential backoff for up to three days; any 2xx counts. */
const STRIPE_FIRST_DELAY = 1 * MINUTE;
const STRIPE_HORIZON = 3 * DAY;

/** T-Bank: once an hour for 24 hours; only HTTP 200 with the body `OK` counts. */
const TBANK_DELAY = 1 * HOUR;
const TBANK_RETRIES = 24;

/** The three senders with their clocks compressed and one request timeout. */
export function providerSenders(
  compression: Compression,
  timeoutMs: number,
): Record<ProviderKind, ProviderSender> {
  return {
    qvard: {
      kind: 'qvard',
      endpoint: 'qvard',
      compression: compression.qvard,
      timeoutMs,
      rule: '5 attempts in about 6 min (after 30 s, 1 min, 2 min, 2.5 min); exactly 200; no redirects',
      nextDelayMs: (attempt) => {
        const delay = QVARD_DELAYS[attempt - 1];
        return delay === undefined ? undefined : delay / compression.qvard;
      },
      accepts: (status) => status === 200,
    },
    stripe: {
      kind: 'stripe',
      endpoint: 'stripe',
      compression: compression.stripe,
      timeoutMs,
      rule: 'exponential backoff from 1 min (x2, ±25 % jitter) for up to 3 days; any 2xx',
      nextDelayMs: (attempt, random) => {
        const elapsed = STRIPE_FIRST_DELAY * (2 ** (attempt - 1) - 1);
        const delay = STRIPE_FIRST_DELAY * 2 ** (attempt - 1) * (0.75 + 0.5 * random());
        return elapsed + delay > STRIPE_HORIZON ? undefined : delay / compression.stripe;
      },
      accepts: (status) => status >= 200 && status < 300,
    },
    tbank: {
      kind: 'tbank',
      endpoint: 'tbank',
      compression: compression.tbank,
      timeoutMs,
      rule: 'once an hour for 24 hours; HTTP 200 with the body "OK"',
      nextDelayMs: (attempt) =>
        attempt > TBANK_RETRIES ? undefined : TBANK_DELAY / compression.tbank,
      accepts: (status, body) => status === 200 && body === 'OK',
    },
  };
}
