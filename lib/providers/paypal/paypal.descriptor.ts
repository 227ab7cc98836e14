import { ProviderDescriptor } from '../provider-descriptor.interface';
import { SigningInputError } from '../signing-input';
import { signPayPalDelivery } from './paypal.signer';

/** PayPal: its retry horizon and how the CLI signs for it (RSA with a certificate). */
export const paypalDescriptor: ProviderDescriptor = {
  kind: 'paypal',
  name: 'PayPal',
  retryHorizon: { days: 3, documented: 'up to 25 retries over 3 days' },
  signing: {
    title: 'PayPal (RSA signature with a certificate)',
    secret: null,
    timestamp: 'PAYPAL-TRANSMISSION-TIME (Unix seconds; default now)',
    payload: 'the event, signed byte for byte (through its CRC32)',
    flags: [
      {
        name: 'webhook-id',
        value: '<id>',
        help: "the webhook id the endpoint is configured with (required; PayPal's simulator uses WEBHOOK_ID)",
      },
      {
        name: 'private-key',
        value: '<pem file>',
        help: "private key of the certificate at --cert-url (default the package's test key, PAYPAL_TEST_PRIVATE_KEY_PEM)",
      },
      {
        name: 'cert-url',
        value: '<url>',
        help: "PAYPAL-CERT-URL, answered by the endpoint's certificateResolver (default PAYPAL_TEST_CERT_URL)",
      },
      {
        name: 'transmission-id',
        value: '<id>',
        help: 'PAYPAL-TRANSMISSION-ID (default a new UUID)',
      },
    ],
    sign: (input) => {
      const webhookId = input.options['webhook-id'];
      if (webhookId === undefined || webhookId === '') {
        throw new SigningInputError('--provider paypal needs --webhook-id');
      }
      return signPayPalDelivery({
        payload: input.text,
        webhookId,
        privateKey:
          input.options['private-key'] === undefined ? undefined : input.readFile('private-key'),
        certUrl: input.options['cert-url'],
        transmissionId: input.options['transmission-id'],
        transmissionTime:
          input.timestamp === undefined ? undefined : new Date(input.timestamp * 1000),
      });
    },
  },
};
