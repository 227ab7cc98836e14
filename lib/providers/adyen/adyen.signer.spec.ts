import { hmacValidator } from '@adyen/api-library';
import type { NotificationRequestItem } from '@adyen/api-library/lib/src/typings/notification/models';
import { adyenEndpoint } from './adyen.provider';
import { notificationsOf } from '../notifications';
import { signAdyenDelivery } from './adyen.signer';
import {
  ADYEN_EXAMPLE_HMAC_KEY,
  ADYEN_EXAMPLE_ITEM,
  ADYEN_EXAMPLE_SIGNATURE,
  ADYEN_MERCHANT_ACCOUNT,
  ADYEN_PAYMENT_PSP_REFERENCE,
  adyenNotificationItem,
} from './adyen.fixtures';
import { storedEventIds } from '../../spec-support/stored-event-ids';

const KEY = 'A1B2C3D4E5F60718293A4B5C6D7E8F90A1B2C3D4E5F60718293A4B5C6D7E8F90';
const validator = new hmacValidator();

interface SentRequest {
  live: string;
  notificationItems: { NotificationRequestItem: NotificationRequestItem }[];
}

function sentItems(body: string): NotificationRequestItem[] {
  return (JSON.parse(body) as SentRequest).notificationItems.map((i) => i.NotificationRequestItem);
}

describe('signAdyenDelivery', () => {
  const items = [
    adyenNotificationItem('AUTHORISATION'),
    adyenNotificationItem('CAPTURE'),
    adyenNotificationItem('REFUND', { success: 'false', reason: 'Insufficient balance' }),
  ];

  it('signs the documented example exactly as Adyen documents it', () => {
    const delivery = signAdyenDelivery({
      hmacKey: ADYEN_EXAMPLE_HMAC_KEY,
      items: [ADYEN_EXAMPLE_ITEM],
    });
    expect(sentItems(delivery.body)[0].additionalData).toEqual({
      hmacSignature: ADYEN_EXAMPLE_SIGNATURE,
    });
  });

  it('gives every item the signature of the official calculateHmac, which validateHMAC accepts', () => {
    const delivery = signAdyenDelivery({ hmacKey: KEY, items });
    const sent = sentItems(delivery.body);
    expect(sent).toHaveLength(3);
    sent.forEach((item, i) => {
      expect(item.additionalData?.hmacSignature).toBe(
        validator.calculateHmac(items[i] as unknown as NotificationRequestItem, KEY),
      );
      expect(validator.validateHMAC(item, KEY)).toBe(true);
    });
  });

  it('keeps the items otherwise unchanged and replaces a stale signature', () => {
    const stale = adyenNotificationItem('CAPTURE', {
      additionalData: { hmacSignature: 'stale', acquirerReference: '7C9N3FNBKT9' },
    });
    const [sent] = sentItems(signAdyenDelivery({ hmacKey: KEY, items: [stale] }).body);
    const { additionalData, ...rest } = sent;
    const { additionalData: _ignored, ...expected } = stale;
    expect(rest).toEqual(expected);
    expect(additionalData?.acquirerReference).toBe('7C9N3FNBKT9');
    expect(additionalData?.hmacSignature).not.toBe('stale');
    expect(validator.validateHMAC(sent, KEY)).toBe(true);
  });

  it('builds the JSON POST Adyen sends, test environment by default', () => {
    const delivery = signAdyenDelivery({ hmacKey: KEY, items });
    expect(delivery).toMatchObject({
      provider: 'adyen',
      method: 'POST',
      headers: { 'content-type': 'application/json' },
    });
    expect((JSON.parse(delivery.body) as SentRequest).live).toBe('false');
    expect(
      (JSON.parse(signAdyenDelivery({ hmacKey: KEY, items, live: 'true' }).body) as SentRequest)
        .live,
    ).toBe('true');
  });

  it('is accepted and normalized by an Adyen endpoint with the same key', () => {
    const provider = adyenEndpoint({
      name: 'adyen',
      hmacKey: KEY,
      merchantAccount: ADYEN_MERCHANT_ACCOUNT,
    }).provider;
    const { body } = signAdyenDelivery({ hmacKey: KEY, items });
    const request = { rawBody: Buffer.from(body), headers: {}, receivedAt: new Date() };
    expect(() => provider.verify(request)).not.toThrow();
    expect(notificationsOf(provider.normalize(request)).map((n) => n.type)).toEqual([
      'payment.authorized',
      'payment.succeeded',
      'refund.failed',
    ]);
  });

  it('is refused by an endpoint with another key', () => {
    const provider = adyenEndpoint({ name: 'adyen', hmacKey: ADYEN_EXAMPLE_HMAC_KEY }).provider;
    const { body } = signAdyenDelivery({ hmacKey: KEY, items });
    expect(() =>
      provider.verify({ rawBody: Buffer.from(body), headers: {}, receivedAt: new Date() }),
    ).toThrow(/hmacSignature does not match/);
  });

  it('refuses a key that is not hex of even length', () => {
    expect(() => signAdyenDelivery({ hmacKey: KEY.slice(1), items })).toThrow(
      /hmacKey must be hex of even length/,
    );
  });

  it('names the key an Adyen endpoint stores each item under', async () => {
    const delivery = signAdyenDelivery({ hmacKey: KEY, items });
    const stored = await storedEventIds(adyenEndpoint({ name: 'adyen', hmacKey: KEY }), delivery);
    expect(stored).toEqual(items.map((i) => `${i.pspReference}:${i.eventCode}:${i.success}`));
    expect(delivery).toMatchObject({ eventId: stored[0], eventIds: stored });
  });
});

describe('Adyen fixtures', () => {
  it('look like Adyen items: 16-character references, ISO dates, minor-unit amounts', () => {
    for (const code of ['AUTHORISATION', 'CAPTURE', 'REFUND', 'CHARGEBACK']) {
      const item = adyenNotificationItem(code);
      expect(item.pspReference).toMatch(/^[A-Z0-9]{16}$/);
      expect(item.merchantAccountCode).toBe(ADYEN_MERCHANT_ACCOUNT);
      expect(Number.isNaN(Date.parse(item.eventDate!))).toBe(false);
      expect(Number.isSafeInteger(item.amount?.value)).toBe(true);
    }
  });

  it('make modifications refer to the payment and keep one reference per event code', () => {
    const capture = adyenNotificationItem('CAPTURE');
    expect(capture.originalReference).toBe(ADYEN_PAYMENT_PSP_REFERENCE);
    expect(capture.pspReference).not.toBe(ADYEN_PAYMENT_PSP_REFERENCE);
    expect(adyenNotificationItem('CAPTURE').pspReference).toBe(capture.pspReference);
    expect(adyenNotificationItem('REFUND').pspReference).not.toBe(capture.pspReference);
    expect(adyenNotificationItem('AUTHORISATION')).not.toHaveProperty('originalReference');
  });
});
