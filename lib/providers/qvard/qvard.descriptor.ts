import { ProviderDescriptor } from '../provider-descriptor.interface';
import { JSON_HEADERS, requireSecret } from '../signing-input';
import { signQvard } from './qvard.signer';

/** Qvard: how the CLI signs for it (Qvard documents no retry schedule). */
export const qvardDescriptor: ProviderDescriptor = {
  kind: 'qvard',
  name: 'Qvard',
  signing: {
    title: 'Qvard',
    secret: "the project's secret key",
    timestamp: null,
    payload: 'the notification, signed byte for byte',
    flags: [],
    sign: (input) => ({
      provider: 'qvard',
      method: 'POST',
      body: input.text,
      headers: {
        ...JSON_HEADERS,
        ...signQvard({ payload: input.text, secret: requireSecret('qvard', input) }),
      },
    }),
  },
};
