import { ProviderDescriptor } from '../provider-descriptor.interface';
import { oneOf, requireSecret, SigningInputError } from '../signing-input';
import { signPolarDelivery } from './polar.signer';

/** Polar: its retry horizon and how the CLI signs for it (Standard Webhooks headers). */
export const polarDescriptor: ProviderDescriptor = {
  kind: 'polar',
  name: 'Polar',
  retryHorizon: {
    days: 1,
    documented:
      'retries up to 10 times with exponential backoff (about 35 minutes in all, the backoff ' +
      'capped at 20 minutes); a redelivery from the dashboard can come later, with the same id',
  },
  signing: {
    title: 'Polar (Standard Webhooks)',
    secret: "the endpoint's secret as Polar shows it (whsec_…)",
    timestamp: 'webhook-timestamp (Unix seconds; default now)',
    payload: 'the event ({ type, timestamp, data }), signed byte for byte',
    flags: [
      { name: 'id', value: '<event id>', help: 'webhook-id, the dedup key (default a new UUID)' },
      {
        name: 'scheme',
        value: 'standard|utf8',
        help:
          "the key Polar signs with: the spec's (whsec_ + base64, endpoints since September 2026) " +
          'or the UTF-8 bytes of the secret (older endpoints); default by the secret’s form',
      },
    ],
    sign: (input) => {
      const secret = requireSecret('polar', input);
      try {
        return signPolarDelivery({
          payload: input.text,
          secret,
          id: input.options.id,
          timestamp: input.timestamp,
          scheme: oneOf('scheme', input.options.scheme, ['standard', 'utf8'] as const),
        });
      } catch (error) {
        if (error instanceof SigningInputError) throw error;
        throw new SigningInputError(
          '--scheme standard for polar needs a --secret of "whsec_" followed by padded base64',
        );
      }
    },
  },
};
