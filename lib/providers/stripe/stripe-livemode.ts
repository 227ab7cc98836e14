import { WebhookConfigurationError } from '../../core/webhook-errors';
import { endpointLabel } from '../providers.messages';

/**
 * Which Stripe modes an endpoint takes events of: `'live'`, `'test'` or `'any'`.
 * An event of another mode is answered `200` (so Stripe stops sending it), not stored, and
 * journaled as `skipped` with the reason.
 */
type StripeLivemode = 'live' | 'test' | 'any';

const MODES: readonly StripeLivemode[] = ['live', 'test', 'any'];

/** The modes an endpoint takes, resolved from its options. */
export interface LivemodePolicy {
  /** The option as set, or how the default was chosen, for the journal's reason. */
  readonly label: string;
  readonly live: boolean;
  readonly test: boolean;
  /** Whether test-mode events of connected accounts are taken. */
  readonly connectedTest: boolean;
}

/**
 * The policy of `livemode`; unset, of the API key: a live key (`sk_live_`, `rk_live_`) takes
 * live events only, a test key any. Without either, the default takes the account's own events
 * of both modes (Stripe sends those only to endpoints of their own mode) and only the live
 * events of connected accounts, whose test-mode events Stripe also sends to a platform's live
 * Connect endpoints.
 * @throws WebhookConfigurationError when `livemode` is none of the modes.
 */
export function resolveLivemode(
  endpointName: unknown,
  livemode: unknown,
  apiKey: string | undefined,
): LivemodePolicy {
  if (livemode !== undefined && !MODES.includes(livemode as StripeLivemode)) {
    throw new WebhookConfigurationError(
      `${endpointLabel(endpointName, 'stripe')}: livemode must be 'live', 'test' or 'any' ` +
        `(got ${JSON.stringify(livemode)}); leave it unset to follow the API key's mode.`,
    );
  }
  if (livemode !== undefined) {
    const mode = livemode as StripeLivemode;
    return { label: `livemode: '${mode}'`, ...modes(mode !== 'test', mode !== 'live') };
  }
  // NOTE: a test key does not narrow the endpoint to test mode: skipping the live events of an
  // app that still has its test key would lose real payments, and acting on them is no risk.
  const keyMode = /^(sk|rk)_(live|test)_/.exec(apiKey ?? '')?.[2];
  if (keyMode === 'live') {
    return { label: 'a live API key', ...modes(true, false) };
  }
  if (keyMode === 'test') {
    return { label: 'a test API key', ...modes(true, true) };
  }
  return { label: 'the default', live: true, test: true, connectedTest: false };
}

function modes(live: boolean, test: boolean): Omit<LivemodePolicy, 'label'> {
  return { live, test, connectedTest: test };
}

/**
 * Why an endpoint does not take an event of this mode, or undefined when it does. An event
 * that states no `livemode` is taken: Stripe always states it.
 */
export function livemodeSkipReason(
  policy: LivemodePolicy,
  livemode: unknown,
  account: string | undefined,
): string | undefined {
  if (livemode === true && !policy.live) {
    return `a live event at an endpoint for test-mode events only (${policy.label})`;
  }
  if (livemode !== false) {
    return undefined;
  }
  if (!policy.test) {
    return `a test-mode event at an endpoint for live events only (${policy.label})`;
  }
  if (account !== undefined && !policy.connectedTest) {
    return (
      `a test-mode event of connected account ${account} at an endpoint for live events of ` +
      `connected accounts (${policy.label}); set livemode: 'test' or 'any' on a test-mode Connect endpoint`
    );
  }
  return undefined;
}
