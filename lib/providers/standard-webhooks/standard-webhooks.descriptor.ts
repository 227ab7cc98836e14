import { randomUUID } from 'node:crypto';
import { withEventIds } from '../delivery-event-ids';
import { ProviderDescriptor } from '../provider-descriptor.interface';
import { jsonPost, oneOf, requireSecret, SigningInputError } from '../signing-input';
import { StandardWebhooksProvider } from './standard-webhooks.provider';
import { signStandardWebhook } from './standard-webhooks.signer';

/** Standard Webhooks (Svix and compatible senders): retry horizon and CLI signing. */
export const standardWebhooksDescriptor: ProviderDescriptor = {
  kind: 'standard',
  name: 'Standard Webhooks',
  aliases: ['standard-webhooks', 'svix'],
  retryHorizon: {
    days: 4,
    documented: "the specification's example schedule spans 75 h 35 min (Svix: about 27.6 h)",
  },
  signing: {
    title: 'Standard Webhooks (Svix and compatible senders)',
    secret: 'the signing secret (whsec_ + base64)',
    timestamp: 'webhook-timestamp (Unix seconds; default now)',
    payload: 'the message, signed byte for byte',
    flags: [
      {
        name: 'id',
        value: '<message id>',
        help: 'webhook-id, the dedup key (default a new msg_… each time)',
      },
      {
        name: 'header-prefix',
        value: 'webhook|svix',
        help: 'header names: webhook-* or svix-* (default webhook)',
      },
    ],
    sign: (input) => {
      const secret = requireSecret('standard', input);
      const headerPrefix = oneOf('header-prefix', input.options['header-prefix'], [
        'webhook',
        'svix',
      ] as const);
      let signature: Record<string, string>;
      try {
        signature = signStandardWebhook({
          id: input.options.id ?? `msg_${randomUUID().replace(/-/g, '')}`,
          payload: input.text,
          secret,
          timestamp: input.timestamp,
          headerPrefix,
        });
      } catch {
        throw new SigningInputError('--secret for standard must be "whsec_" followed by base64');
      }
      return withEventIds(
        jsonPost('standard', input, signature),
        () => new StandardWebhooksProvider({ secret }),
      );
    },
  },
};
