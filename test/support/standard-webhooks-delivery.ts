import { Webhook } from 'standardwebhooks';

/**
 * The headers of a Standard Webhooks message `id` carrying `body`, sent at `at` (now unless
 * set), signed with `secret` by the official `standardwebhooks` library's `Webhook.sign`.
 */
export function standardWebhooksHeaders(
  secret: string,
  id: string,
  body: string,
  at: Date = new Date(),
): Record<string, string> {
  // NOTE: the header carries whole seconds and the library signs those, so the two agree.
  const seconds = Math.floor(at.getTime() / 1000);
  return {
    'webhook-id': id,
    'webhook-timestamp': String(seconds),
    'webhook-signature': new Webhook(secret).sign(id, new Date(seconds * 1000), body),
  };
}
