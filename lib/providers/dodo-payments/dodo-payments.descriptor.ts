import { ProviderDescriptor } from '../provider-descriptor.interface';
import { requireSecret, SigningInputError } from '../signing-input';
import { signDodoPaymentsDelivery } from './dodo-payments.signer';

/** Dodo Payments: its retry horizon and how the CLI signs for it (Standard Webhooks headers). */
export const dodoPaymentsDescriptor: ProviderDescriptor = {
  kind: 'dodo-payments',
  name: 'Dodo Payments',
  aliases: ['dodo', 'dodopayments'],
  retryHorizon: {
    days: 4,
    documented:
      'retries with exponential backoff, no horizon given (the Standard Webhooks example ' +
      'schedule spans 75 h 35 min); deliveries can also be replayed from the dashboard',
  },
  signing: {
    title: 'Dodo Payments (Standard Webhooks)',
    secret: "the endpoint's signing secret (whsec_ + base64)",
    timestamp: 'webhook-timestamp (Unix seconds; default now)',
    payload: 'the event ({ business_id, type, timestamp, data }), signed byte for byte',
    flags: [
      {
        name: 'id',
        value: '<message id>',
        help: 'webhook-id, the dedup key (default a new msg_…)',
      },
    ],
    sign: (input) => {
      const secret = requireSecret('dodo-payments', input);
      try {
        return signDodoPaymentsDelivery({
          payload: input.text,
          secret,
          id: input.options.id,
          timestamp: input.timestamp,
        });
      } catch {
        throw new SigningInputError(
          '--secret for dodo-payments must be "whsec_" followed by base64',
        );
      }
    },
  },
};
