import { ProviderDescriptor } from '../provider-descriptor.interface';
import { requireSecret } from '../signing-input';
import { signLemonSqueezyDelivery } from './lemon-squeezy.signer';

/** Lemon Squeezy: its retry horizon and how the CLI signs for it. */
export const lemonSqueezyDescriptor: ProviderDescriptor = {
  kind: 'lemon-squeezy',
  name: 'Lemon Squeezy',
  aliases: ['lemonsqueezy'],
  retryHorizon: {
    days: 1,
    documented:
      'retried up to three more times with exponential backoff (e.g. 5 s, 25 s, 125 s), then given up',
  },
  signing: {
    title: 'Lemon Squeezy',
    secret: "the webhook's signing secret",
    timestamp: null,
    payload: 'the event (meta and data), signed byte for byte',
    flags: [],
    sign: (input) =>
      signLemonSqueezyDelivery({
        payload: input.text,
        signingSecret: requireSecret('lemon-squeezy', input),
      }),
  },
};
