import { ProviderDescriptor } from '../provider-descriptor.interface';
import { formFields, oneOf, SigningInputError } from '../signing-input';
import { signSberDelivery } from './sber.signer';

/** Sber: its retry horizon and how the CLI signs for it (symmetric or RSA checksum). */
export const sberDescriptor: ProviderDescriptor = {
  kind: 'sber',
  name: 'Sber',
  retryHorizon: {
    days: 1,
    documented: 'every 30 s until answered or 3 consecutive failures (gateway default)',
  },
  signing: {
    title: 'Sber (callback with checksum)',
    secret: 'the callback token (symmetric checksum); or give --private-key instead',
    secretAlternative: 'private-key',
    timestamp: null,
    payload: 'the callback parameters as a flat object, without checksum',
    flags: [
      {
        name: 'method',
        value: 'GET|POST',
        help: 'GET puts the parameters in the query string, POST in a form body (default GET)',
      },
      {
        name: 'private-key',
        value: '<pem file>',
        help: 'RSA private key for the asymmetric checksum (RSA SHA-512), instead of --secret',
      },
    ],
    sign: (input) => {
      const privateKeyFile = input.options['private-key'];
      if ((input.secret === undefined) === (privateKeyFile === undefined)) {
        throw new SigningInputError(
          '--provider sber needs exactly one of --secret (callback token) and --private-key',
        );
      }
      return signSberDelivery({
        payload: formFields('sber', input, 'the callback parameters'),
        callbackToken: input.secret,
        privateKey: privateKeyFile === undefined ? undefined : input.readFile('private-key'),
        method: oneOf('method', input.options.method?.toUpperCase(), ['GET', 'POST'] as const),
      });
    },
  },
};
