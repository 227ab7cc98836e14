import { ProviderDescriptor } from '../provider-descriptor.interface';
import { requireSecret } from '../signing-input';
import { signPaystackDelivery } from './paystack.signer';

/** Paystack: its retry horizon and how the CLI signs for it. */
export const paystackDescriptor: ProviderDescriptor = {
  kind: 'paystack',
  name: 'Paystack',
  retryHorizon: {
    days: 4,
    documented:
      'live mode: every 3 minutes for the first 4 tries, then hourly for 72 hours (test mode: hourly for 10 hours)',
  },
  signing: {
    title: 'Paystack',
    secret: 'the secret key (sk_test_… or sk_live_…)',
    timestamp: null,
    payload: 'the event {"event":…,"data":{…}}, signed byte for byte',
    flags: [],
    sign: (input) =>
      signPaystackDelivery({ payload: input.text, secretKey: requireSecret('paystack', input) }),
  },
};
