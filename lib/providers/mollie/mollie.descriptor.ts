import { ProviderDescriptor } from '../provider-descriptor.interface';
import { requireSecret } from '../signing-input';
import { signMollieDelivery } from './mollie.signer';

/** Mollie: its retry horizon and how the CLI signs a next-gen webhook for it. */
export const mollieDescriptor: ProviderDescriptor = {
  kind: 'mollie',
  name: 'Mollie',
  retryHorizon: {
    days: 2,
    documented:
      'classic webhooks: "we’ll keep trying for a few hours" (up to 10 calls over about 26 hours); ' +
      'next-gen webhooks: retried by their retry schema after a failure or no answer within 15 s',
  },
  signing: {
    title: 'Mollie (next-gen webhooks)',
    secret: "the next-gen webhook's signing secret",
    timestamp: null,
    payload:
      'a next-gen webhook event (resource "event"), signed byte for byte; classic webhooks ' +
      '(id=tr_…) are not signed, the endpoint confirms them with the Mollie API',
    flags: [],
    sign: (input) =>
      signMollieDelivery({ payload: input.text, signingSecret: requireSecret('mollie', input) }),
  },
};
