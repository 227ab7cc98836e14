import { randomUUID } from 'node:crypto';
import { dodoPaymentsEndpoint } from 'nestjs-payment-webhooks';
import { dodoPaymentsFixtures } from 'nestjs-payment-webhooks/testing';
import { standardWebhooksPlatformKit } from './standard-webhooks-platform-kit';

/**
 * Dodo Payments, signed by the official `standardwebhooks` library, the one the `dodopayments`
 * SDK's `webhooks.unwrap` verifies with.
 */
export const kit = standardWebhooksPlatformKit({
  kind: 'dodo-payments',
  secrets: {
    right: `whsec_${Buffer.from('dodo-payments-provider-kit-key').toString('base64')}`,
    wrong: `whsec_${Buffer.from('dodo-payments-provider-kit-other').toString('base64')}`,
  },
  endpoint: dodoPaymentsEndpoint,
  paidEvent: dodoPaymentsFixtures.paymentSucceeded,
  paymentRefField: 'payment_id',
  eventId: (unique = randomUUID().replace(/-/g, '')) => `msg_${unique}`,
});
