import { ProviderDescriptor, SigningInput } from '../provider-descriptor.interface';
import { oneOf, requireSecret, SigningInputError } from '../signing-input';
import { AdyenNotificationRequestItem } from './adyen.provider';
import { signAdyenDelivery } from './adyen.signer';

function notificationItem(entry: unknown): AdyenNotificationRequestItem {
  const item =
    entry !== null && typeof entry === 'object' && 'NotificationRequestItem' in entry
      ? (entry as { NotificationRequestItem: unknown }).NotificationRequestItem
      : entry;
  if (item === null || typeof item !== 'object' || Array.isArray(item)) {
    throw new SigningInputError(
      '--provider adyen takes a notification request, a list of NotificationRequestItem or one item in --file',
    );
  }
  return item as AdyenNotificationRequestItem;
}

/** The items and `live` flag of a notification request, a list of items, or one item. */
function notificationRequest(input: SigningInput): {
  items: AdyenNotificationRequestItem[];
  live?: 'true' | 'false';
} {
  const json = input.json as { notificationItems?: unknown; live?: unknown } | unknown[];
  if (Array.isArray(json)) {
    return { items: json.map(notificationItem) };
  }
  if (json !== null && typeof json === 'object' && Array.isArray(json.notificationItems)) {
    const live = json.live === undefined ? undefined : String(json.live);
    return {
      items: json.notificationItems.map(notificationItem),
      live: oneOf('live (in --file)', live, ['true', 'false'] as const),
    };
  }
  return { items: [notificationItem(json)] };
}

/** Adyen standard notifications: retry horizon and CLI signing (each item is signed). */
export const adyenDescriptor: ProviderDescriptor = {
  kind: 'adyen',
  name: 'Adyen',
  retryHorizon: {
    days: 30,
    documented: '3 quick retries, then a retry queue for up to 30 days',
  },
  signing: {
    title: 'Adyen (standard notifications)',
    secret: 'the HMAC key (hex, as Customer Area shows it)',
    timestamp: null,
    payload:
      'a notification request { "live", "notificationItems": [ … ] }, a list of items, or one NotificationRequestItem; each item is signed',
    flags: [],
    sign: (input) => {
      const { items, live } = notificationRequest(input);
      try {
        return signAdyenDelivery({ hmacKey: requireSecret('adyen', input), items, live });
      } catch (error) {
        if (error instanceof SigningInputError) throw error;
        throw new SigningInputError('--secret for adyen must be the HMAC key in hex (even length)');
      }
    },
  },
};
