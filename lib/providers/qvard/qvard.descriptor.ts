import { withEventIds } from '../delivery-event-ids';
import { ProviderDescriptor } from '../provider-descriptor.interface';
import { jsonPost, requireSecret } from '../signing-input';
import { QvardWebhookProvider } from './qvard.provider';
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
    sign: (input) => {
      const secret = requireSecret('qvard', input);
      const signature = signQvard({ payload: input.text, secret });
      return withEventIds(
        jsonPost('qvard', input, signature),
        () => new QvardWebhookProvider({ secret }),
      );
    },
  },
};
