import { withEventIds } from '../delivery-event-ids';
import { ProviderDescriptor } from '../provider-descriptor.interface';
import { jsonPost, requireSecret } from '../signing-input';
import { StripeWebhookProvider } from './stripe.provider';
import { signStripe } from './stripe.signer';

/** Stripe: its retry horizon and how the CLI signs for it. */
export const stripeDescriptor: ProviderDescriptor = {
  kind: 'stripe',
  name: 'Stripe',
  retryHorizon: {
    days: 3,
    documented: 'live mode retries with exponential backoff for up to 3 days',
  },
  signing: {
    title: 'Stripe',
    secret: 'the endpoint signing secret (whsec_…)',
    timestamp: 'the signed time t= (Unix seconds; default now)',
    payload: 'the event, signed byte for byte',
    flags: [],
    sign: (input) => {
      const secret = requireSecret('stripe', input);
      const signature = signStripe({ payload: input.text, secret, timestamp: input.timestamp });
      return withEventIds(
        jsonPost('stripe', input, signature),
        () => new StripeWebhookProvider({ secret }),
      );
    },
  },
};
