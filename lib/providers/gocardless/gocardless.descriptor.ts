import { ProviderDescriptor } from '../provider-descriptor.interface';
import { requireSecret } from '../signing-input';
import { signGoCardlessDelivery } from './gocardless.signer';

/** GoCardless: its retry horizon and how the CLI signs for it. */
export const goCardlessDescriptor: ProviderDescriptor = {
  kind: 'gocardless',
  name: 'GoCardless',
  retryHorizon: {
    // NOTE: GoCardless gives the count and the first intervals, not the span; the package's
    // shortest dedup window (7 days) covers any schedule that starts at 1, 2 and 10 minutes.
    days: 7,
    documented:
      'up to 8 retries at increasing intervals (1 min, 2 min, 10 min, …); the span is not documented',
  },
  signing: {
    title: 'GoCardless',
    secret: "the webhook endpoint's secret",
    timestamp: null,
    payload: 'the webhook body {"events":[…]}, signed byte for byte',
    flags: [],
    sign: (input) =>
      signGoCardlessDelivery({
        payload: input.text,
        secret: requireSecret('gocardless', input),
      }),
  },
};
