import { ProviderDescriptor } from '../provider-descriptor.interface';
import { jsonObject, oneOf, requireSecret } from '../signing-input';
import { CloudPaymentsParameters, signCloudPaymentsDelivery } from './cloudpayments.signer';
import { CLOUDPAYMENTS_NOTIFICATIONS } from './cloudpayments.provider';

/** CloudPayments: how the CLI signs for it. */
export const cloudPaymentsDescriptor: ProviderDescriptor = {
  kind: 'cloudpayments',
  name: 'CloudPayments',
  // NOTE: no retryHorizon: the API reference read for this provider gives no retry schedule, so
  // dedup keys keep the package's 7-day minimum (see docs/providers/cloudpayments.md).
  signing: {
    title: 'CloudPayments (Content-HMAC)',
    secret: "the site's API secret",
    timestamp: null,
    payload:
      'the notification parameters as one JSON object (send them to the endpoint of their kind)',
    flags: [
      {
        name: 'notification',
        value: '<name>',
        help: `the endpoint's notification (${CLOUDPAYMENTS_NOTIFICATIONS.join(', ')}), which starts the event's id (default none: no id)`,
      },
      {
        name: 'format',
        value: '<form|json>',
        help: "the body's format as the site's notification settings choose it (default form)",
      },
    ],
    sign: (input) => {
      const format = oneOf('format', input.options.format, ['form', 'json'] as const);
      return signCloudPaymentsDelivery({
        payload: jsonObject(
          'cloudpayments',
          input,
          'the notification parameters',
        ) as CloudPaymentsParameters,
        apiSecret: requireSecret('cloudpayments', input),
        format,
        notification: oneOf(
          'notification',
          input.options.notification,
          CLOUDPAYMENTS_NOTIFICATIONS,
        ),
      });
    },
  },
};
