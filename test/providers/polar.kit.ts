import { randomUUID } from 'node:crypto';
import { polarEndpoint } from 'nestjs-payment-webhooks';
import { polarFixtures } from 'nestjs-payment-webhooks/testing';
import { standardWebhooksPlatformKit } from './standard-webhooks-platform-kit';

/** Polar, signed by the official `standardwebhooks` library (the one Polar's server signs with). */
export const kit = standardWebhooksPlatformKit({
  kind: 'polar',
  // NOTE: secrets in the form Polar generates since September 2026 (whsec_ + base64 of 32 bytes).
  secrets: {
    right: `whsec_${Buffer.alloc(32, 0x2a).toString('base64')}`,
    wrong: `whsec_${Buffer.alloc(32, 0x3b).toString('base64')}`,
  },
  endpoint: polarEndpoint,
  paidEvent: polarFixtures.orderPaid,
  paymentRefField: 'id',
  eventId: (unique = randomUUID()) => unique,
});
