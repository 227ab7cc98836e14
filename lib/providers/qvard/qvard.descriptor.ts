import { withEventIds } from '../delivery-event-ids';
import { ProviderDescriptor } from '../provider-descriptor.interface';
import { JSON_HEADERS, requireSecret } from '../signing-input';
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
      const delivery = {
        provider: 'qvard',
        method: 'POST' as const,
        body: input.text,
        headers: { ...JSON_HEADERS, ...signQvard({ payload: input.text, secret }) },
      };
      return withEventIds(delivery, () => new QvardWebhookProvider({ secret }));
    },
  },
};
