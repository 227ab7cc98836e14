import { ProviderDescriptor } from '../provider-descriptor.interface';
import { formFields, oneOf, requireSecret } from '../signing-input';
import { signRobokassaDelivery } from './robokassa.signer';

/** Robokassa: how the CLI signs for it. */
export const robokassaDescriptor: ProviderDescriptor = {
  kind: 'robokassa',
  name: 'Robokassa',
  // NOTE: no retryHorizon: the documentation read for this provider gives no retry schedule, so
  // dedup keys keep the package's 7-day minimum (see docs/providers/robokassa.md).
  signing: {
    title: 'Robokassa (ResultURL)',
    secret: 'Password #2 of the shop (the test Password #2 for IsTest=1)',
    timestamp: null,
    payload: 'the ResultURL parameters (OutSum, InvId, Shp_…) as one flat JSON object',
    flags: [
      {
        name: 'hash-algorithm',
        value: '<md5|sha1|sha256|sha384|sha512>',
        help: "the shop's hash algorithm (default md5)",
      },
      { name: 'method', value: '<POST|GET>', help: 'how Robokassa calls (default POST)' },
    ],
    sign: (input) =>
      signRobokassaDelivery({
        payload: formFields('robokassa', input, 'the ResultURL parameters'),
        password2: requireSecret('robokassa', input),
        hashAlgorithm: oneOf('hash-algorithm', input.options['hash-algorithm'], [
          'md5',
          'sha1',
          'sha256',
          'sha384',
          'sha512',
        ] as const),
        method: oneOf('method', input.options.method, ['POST', 'GET'] as const),
      }),
  },
};
