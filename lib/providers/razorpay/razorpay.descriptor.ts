import { ProviderDescriptor } from '../provider-descriptor.interface';
import { requireSecret } from '../signing-input';
import { signRazorpayDelivery } from './razorpay.signer';

/** Razorpay: its retry horizon and how the CLI signs for it. */
export const razorpayDescriptor: ProviderDescriptor = {
  kind: 'razorpay',
  name: 'Razorpay',
  retryHorizon: {
    days: 1,
    documented:
      'retries with exponential backoff for 24 hours after the event was created, then disables ' +
      'the webhook (a replay on request covers events up to 15 days old)',
  },
  signing: {
    title: 'Razorpay',
    secret: "the webhook's secret",
    timestamp: null,
    payload: 'the event, signed byte for byte',
    flags: [
      {
        name: 'event-id',
        value: '<id>',
        help: 'x-razorpay-event-id, sent unsigned and not read by the endpoint (default: none)',
      },
    ],
    sign: (input) =>
      signRazorpayDelivery({
        payload: input.text,
        secret: requireSecret('razorpay', input),
        eventId: input.options['event-id'],
      }),
  },
};
