import { ProviderDescriptor } from '../provider-descriptor.interface';
import { requireSecret, SigningInputError } from '../signing-input';
import { signSquareDelivery } from './square.signer';

/** Square: its retry horizon and how the CLI signs for it (the URL is signed with the body). */
export const squareDescriptor: ProviderDescriptor = {
  kind: 'square',
  name: 'Square',
  retryHorizon: {
    days: 3,
    documented: 'retries for up to 24 hours (another version of the docs says 72 hours)',
  },
  signing: {
    title: 'Square',
    secret: "the subscription's signature key",
    timestamp: null,
    payload: 'the event, signed byte for byte',
    flags: [
      {
        name: 'notification-url',
        value: '<url>',
        help: 'the notification URL as registered, signed with the body (send: default the target URL)',
      },
    ],
    sign: (input) => {
      const notificationUrl = input.options['notification-url'] ?? input.url;
      if (notificationUrl === undefined || notificationUrl === '') {
        throw new SigningInputError(
          '--provider square needs --notification-url (the URL exactly as registered with Square)',
        );
      }
      return signSquareDelivery({
        payload: input.text,
        signatureKey: requireSecret('square', input),
        notificationUrl,
      });
    },
  },
};
