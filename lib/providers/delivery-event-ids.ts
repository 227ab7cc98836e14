import {
  WebhookConfigurationError,
  WebhookPayloadError,
  WebhookVerificationError,
} from '../core/webhook-errors';
import { notificationsOf } from './notifications';
import { SignedDelivery } from './signed-delivery';
import { InboundWebhook, WebhookProvider } from './webhook-provider.interface';

/** What reads a delivery's dedup keys: a provider, as the endpoint would build it. */
export type NormalizingProvider = Pick<WebhookProvider, 'normalize'>;

/**
 * The request the ingress hands a provider for a delivery: its exact bytes (a GET delivery's
 * query string, read as the URL's Latin-1 bytes), its headers by lower-cased name, and now as
 * the time it arrived.
 */
function inboundWebhookOf(delivery: SignedDelivery): InboundWebhook {
  const headers = Object.fromEntries(
    Object.entries(delivery.headers).map(([name, value]) => [name.toLowerCase(), value]),
  );
  const encoding = delivery.method === 'GET' ? 'latin1' : 'utf8';
  return { rawBody: Buffer.from(delivery.body, encoding), headers, receivedAt: new Date() };
}

/**
 * The delivery with the ids the provider stores its notifications under: `eventId`, the first,
 * and `eventIds` when there are several. They are read by the provider's own `normalize()` from
 * the exact method, body and headers built, so a signer cannot disagree with the ingress. A
 * delivery the provider cannot read (a malformed body signed on purpose, options the provider
 * refuses) is returned as it is, with the id its builder wrote if any.
 * @param providerOf builds the provider from the signer's options, as the endpoint would.
 * @example
 * return withEventIds(delivery, () => razorpayProvider.provider({ secret: options.secret }));
 */
export function withEventIds<D extends SignedDelivery>(
  delivery: D,
  providerOf: () => NormalizingProvider,
): D {
  const ids = storedIdsOf(delivery, providerOf);
  if (ids === undefined || ids.length === 0) {
    return delivery;
  }
  return { ...delivery, eventId: ids[0], ...(ids.length > 1 ? { eventIds: ids } : {}) };
}

/** The dedup keys of the delivery's notifications; undefined when the provider refuses it. */
function storedIdsOf(
  delivery: SignedDelivery,
  providerOf: () => NormalizingProvider,
): string[] | undefined {
  try {
    const normalized = providerOf().normalize(inboundWebhookOf(delivery));
    return notificationsOf(normalized).map((notification) => notification.eventId);
  } catch (error) {
    if (
      error instanceof WebhookPayloadError ||
      error instanceof WebhookVerificationError ||
      error instanceof WebhookConfigurationError
    ) {
      return undefined;
    }
    throw error;
  }
}
