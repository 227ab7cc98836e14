import { ProviderDescriptor } from '../provider-descriptor.interface';
import { requireSecret } from '../signing-input';
import { signCheckoutComDelivery } from './checkout-com.signer';

/** Checkout.com: its retry horizon and how the CLI signs for it. */
export const checkoutComDescriptor: ProviderDescriptor = {
  kind: 'checkout-com',
  name: 'Checkout.com',
  aliases: ['checkout', 'checkoutcom', 'checkout.com'],
  retryHorizon: {
    days: 2,
    documented:
      'resent up to eight times, 5 min, 10 min, 15 min, 30 min, 1 h, 4 h, 12 h and 12 h after the attempt before (about 30 hours)',
  },
  signing: {
    title: 'Checkout.com',
    secret: "the webhook's signature key",
    timestamp: null,
    payload: 'the event, signed byte for byte',
    flags: [
      {
        name: 'authorization',
        value: '<key>',
        help: "the webhook's Authorization header key, sent as the Authorization header (default: none)",
      },
    ],
    sign: (input) =>
      signCheckoutComDelivery({
        payload: input.text,
        signatureKey: requireSecret('checkout-com', input),
        authorization: input.options.authorization,
      }),
  },
};
