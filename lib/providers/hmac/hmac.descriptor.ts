import { withEventIds } from '../delivery-event-ids';
import { ProviderDescriptor } from '../provider-descriptor.interface';
import { jsonPost, oneOf, requireSecret, SigningInputError } from '../signing-input';
import { HmacSignatureEncoding, HmacWebhookProvider } from './hmac.provider';
import { signHmac } from './hmac.signer';

/**
 * Generic HMAC-SHA256 (`hmacEndpoint`): how the CLI signs for it. No retry horizon: the sender
 * is whoever the endpoint is configured for.
 */
export const hmacDescriptor: ProviderDescriptor = {
  kind: 'hmac',
  name: 'generic HMAC-SHA256',
  signing: {
    title: 'generic HMAC-SHA256 (hmacEndpoint)',
    secret: 'the shared secret',
    timestamp: 'the signed time, with --timestamp-header (Unix seconds; default now)',
    payload: 'the body, signed byte for byte',
    flags: [
      {
        name: 'signature-header',
        value: '<name>',
        help: 'header carrying the signature (default x-signature)',
      },
      {
        name: 'signature-prefix',
        value: '<text>',
        help: 'text before the signature, e.g. sha256= (default none)',
      },
      { name: 'encoding', value: 'hex|base64', help: 'signature encoding (default hex)' },
      {
        name: 'timestamp-header',
        value: '<name>',
        help: 'header carrying the time; the signed text becomes "<time>.<body>" (default none)',
      },
    ],
    sign: (input) => {
      if (input.timestamp !== undefined && input.options['timestamp-header'] === undefined) {
        throw new SigningInputError(
          '--timestamp needs --timestamp-header for --provider hmac (the endpoint reads the time from it)',
        );
      }
      const secret = requireSecret('hmac', input);
      const signature = signHmac({
        payload: input.text,
        secret,
        timestamp: input.timestamp,
        signatureHeader: input.options['signature-header'],
        signaturePrefix: input.options['signature-prefix'],
        encoding: oneOf<HmacSignatureEncoding>('encoding', input.options.encoding, [
          'hex',
          'base64',
        ]),
        timestampHeader: input.options['timestamp-header'],
      });
      // NOTE: the endpoint's defaults: the id at `id`, the type at `type`, kind `hmac`.
      return withEventIds(
        jsonPost('hmac', input, signature),
        () => new HmacWebhookProvider({ secret }),
      );
    },
  },
};
