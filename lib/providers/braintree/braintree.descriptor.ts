import { ProviderDescriptor, SigningInput } from '../provider-descriptor.interface';
import { SigningInputError, jsonObject, requireSecret } from '../signing-input';
import { braintreeNotificationXml } from './braintree.fixtures';
import { plainChildrenXml } from './braintree-xml-writer';
import { signBraintreeDelivery } from './braintree.signer';

/** Braintree: its retry horizon and how the CLI signs for it (the XML is built from JSON). */
export const braintreeDescriptor: ProviderDescriptor = {
  kind: 'braintree',
  name: 'Braintree',
  retryHorizon: {
    days: 1,
    documented: 'resent every hour for up to 24 hours in production (3 hours in the sandbox)',
  },
  signing: {
    title: 'Braintree',
    secret: 'the private key of the API key (its public key goes in --public-key)',
    timestamp: null,
    payload:
      'the notification as JSON, { "kind", "timestamp" (default now), "subject": { "transaction": { "id", "order-id", … } } }, sent as Braintree\'s XML',
    flags: [
      {
        name: 'public-key',
        value: '<key>',
        help: 'the public key of the API key, named in bt_signature (required)',
      },
    ],
    sign: (input) => {
      const publicKey = input.options['public-key'];
      if (publicKey === undefined || publicKey === '') {
        throw new SigningInputError(
          '--provider braintree needs --public-key (the public key of the API key whose private key is --secret)',
        );
      }
      return signBraintreeDelivery({
        payload: notificationXml(input),
        publicKey,
        privateKey: requireSecret('braintree', input),
      });
    },
  },
};

function notificationXml(input: SigningInput): string {
  const what = '{ "kind", "timestamp", "subject" }';
  const { kind, timestamp, subject } = jsonObject('braintree', input, what);
  const at = timestamp === undefined ? new Date() : new Date(String(timestamp));
  if (typeof kind !== 'string' || kind === '' || Number.isNaN(at.getTime())) {
    throw new SigningInputError(
      `--provider braintree takes ${what} in --file: "kind" a string, "timestamp" an ISO 8601 date`,
    );
  }
  try {
    return braintreeNotificationXml(kind, at, plainChildrenXml(subject));
  } catch (error) {
    throw new SigningInputError(
      `--provider braintree: "subject" in --file ${(error as Error).message}`,
    );
  }
}
