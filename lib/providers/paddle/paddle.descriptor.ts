import { ProviderDescriptor } from '../provider-descriptor.interface';
import { requireSecret } from '../signing-input';
import { signPaddleDelivery } from './paddle.signer';

/** Paddle Billing: its retry horizon and how the CLI signs for it. */
export const paddleDescriptor: ProviderDescriptor = {
  kind: 'paddle',
  name: 'Paddle',
  retryHorizon: { days: 3, documented: 'live mode: up to 60 retries over 3 days' },
  signing: {
    title: 'Paddle Billing',
    secret: 'the notification destination secret key (pdl_ntfset_…)',
    timestamp: 'ts= (Unix seconds; default now; Paddle allows 5 s)',
    payload: 'the event, signed byte for byte',
    flags: [],
    sign: (input) =>
      signPaddleDelivery({
        payload: input.text,
        secret: requireSecret('paddle', input),
        timestamp: input.timestamp,
      }),
  },
};
