import { hmacValidator } from '@adyen/api-library';
import type { NotificationRequestItem } from '@adyen/api-library/lib/src/typings/notification/models';
import { adyenNotificationItem } from 'nestjs-payment-webhooks/testing';

/**
 * The JSON body of an Adyen notification request carrying `items`, each signed with `hmacKey`
 * by the official library's `calculateHmac`.
 */
export function signedAdyenBody(
  hmacKey: string,
  items: readonly ReturnType<typeof adyenNotificationItem>[],
): string {
  const validator = new hmacValidator();
  return JSON.stringify({
    live: 'false',
    notificationItems: items.map((item) => ({
      NotificationRequestItem: {
        ...item,
        additionalData: {
          ...item.additionalData,
          hmacSignature: validator.calculateHmac(
            item as unknown as NotificationRequestItem,
            hmacKey,
          ),
        },
      },
    })),
  });
}
