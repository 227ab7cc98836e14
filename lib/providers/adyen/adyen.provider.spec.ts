import { hmacValidator } from '@adyen/api-library';
import type { NotificationRequestItem } from '@adyen/api-library/lib/src/typings/notification/models';
import { createHmac } from 'node:crypto';
import { WebhookConfigurationError } from '../../core/webhook-errors';
import {
  ADYEN_EXAMPLE_HMAC_KEY,
  ADYEN_EXAMPLE_ITEM,
  ADYEN_EXAMPLE_SIGNATURE,
  ADYEN_PAYMENT_PSP_REFERENCE,
  adyenNotificationItem,
} from './adyen.fixtures';
import {
  AdyenEndpointOptions,
  AdyenNotificationRequestItem,
  adyenEndpoint,
  adyenSigningString,
} from './adyen.provider';
import { notificationsOf } from '../notifications';
import { InboundWebhook, NormalizedNotification } from '../webhook-provider.interface';
import { rejection } from '../../spec-support/rejection';

const KEY = 'A1B2C3D4E5F60718293A4B5C6D7E8F90A1B2C3D4E5F60718293A4B5C6D7E8F90';
const OLD_KEY = '0F1E2D3C4B5A69788796A5B4C3D2E1F00F1E2D3C4B5A69788796A5B4C3D2E1F0';
const validator = new hmacValidator();

type Item = AdyenNotificationRequestItem & Record<string, unknown>;

/** Signs with the official library: `calculateHmac(item, hexKey)` into additionalData. */
function officiallySigned(item: AdyenNotificationRequestItem, hexKey = KEY): Item {
  const hmacSignature = validator.calculateHmac(item as unknown as NotificationRequestItem, hexKey);
  return { ...item, additionalData: { ...item.additionalData, hmacSignature } };
}

function requestBody(items: readonly Item[], live: unknown = 'false'): string {
  return JSON.stringify({
    ...(live === null ? {} : { live }),
    notificationItems: items.map((item) => ({ NotificationRequestItem: item })),
  });
}

function delivery(body: string | Buffer): InboundWebhook {
  return {
    rawBody: Buffer.isBuffer(body) ? body : Buffer.from(body, 'utf8'),
    headers: { 'content-type': 'application/json' },
    receivedAt: new Date(),
  };
}

function provider(options: Partial<AdyenEndpointOptions> = {}) {
  return adyenEndpoint({ name: 'adyen', hmacKey: KEY, ...options }).provider;
}

function normalizeAll(body: string, options: Partial<AdyenEndpointOptions> = {}) {
  const request = delivery(body);
  const adyen = provider(options);
  adyen.verify(request);
  return notificationsOf(adyen.normalize(request));
}

function normalizeOne(item: AdyenNotificationRequestItem): NormalizedNotification {
  const [notification] = normalizeAll(requestBody([officiallySigned(item)]));
  return notification;
}

const THREE_ITEMS = [
  adyenNotificationItem('AUTHORISATION'),
  adyenNotificationItem('CAPTURE'),
  adyenNotificationItem('REFUND', { amount: { value: 500, currency: 'EUR' } }),
];

describe('adyenEndpoint', () => {
  describe('signing string and the documented example', () => {
    it('builds the documented string, as the official library does', () => {
      const expected =
        '7914073381342284::TestMerchant:TestPayment-1407325143704:1130:EUR:AUTHORISATION:true';
      expect(adyenSigningString(ADYEN_EXAMPLE_ITEM)).toBe(expected);
      expect(
        validator.getDataToSign(ADYEN_EXAMPLE_ITEM as unknown as NotificationRequestItem),
      ).toBe(expected);
    });

    it('reproduces the documented signature with node:crypto and the official library', () => {
      const independent = createHmac('sha256', Buffer.from(ADYEN_EXAMPLE_HMAC_KEY, 'hex'))
        .update(adyenSigningString(ADYEN_EXAMPLE_ITEM))
        .digest('base64');
      expect(independent).toBe(ADYEN_EXAMPLE_SIGNATURE);
      expect(officiallySigned(ADYEN_EXAMPLE_ITEM, ADYEN_EXAMPLE_HMAC_KEY).additionalData).toEqual({
        hmacSignature: ADYEN_EXAMPLE_SIGNATURE,
      });
    });

    it('accepts the documented example item with the documented key', () => {
      const body = requestBody([
        { ...ADYEN_EXAMPLE_ITEM, additionalData: { hmacSignature: ADYEN_EXAMPLE_SIGNATURE } },
      ]);
      expect(() =>
        provider({ hmacKey: ADYEN_EXAMPLE_HMAC_KEY }).verify(delivery(body)),
      ).not.toThrow();
    });

    it('writes missing and null fields as empty strings, exactly as the official library', () => {
      const sparse = {
        pspReference: 'NC6HT9CRT65ZGN82',
        originalReference: null,
        merchantAccountCode: 'ShopCompanyECOM',
        eventCode: 'REPORT_AVAILABLE',
        success: 'true',
        amount: { value: 0, currency: 'EUR' },
      } as unknown as AdyenNotificationRequestItem;
      expect(adyenSigningString(sparse)).toBe(
        'NC6HT9CRT65ZGN82::ShopCompanyECOM::0:EUR:REPORT_AVAILABLE:true',
      );
      expect(adyenSigningString(sparse)).toBe(
        validator.getDataToSign(sparse as unknown as NotificationRequestItem),
      );
      expect(() =>
        provider().verify(delivery(requestBody([officiallySigned(sparse)]))),
      ).not.toThrow();
    });

    it('signs an item without an amount over empty value and currency', () => {
      const { amount: _amount, ...withoutAmount } = adyenNotificationItem('REPORT_AVAILABLE');
      expect(adyenSigningString(withoutAmount)).toMatch(/:order-1042:::REPORT_AVAILABLE:true$/);
      const signature = createHmac('sha256', Buffer.from(KEY, 'hex'))
        .update(adyenSigningString(withoutAmount))
        .digest('base64');
      const body = requestBody([
        { ...withoutAmount, additionalData: { hmacSignature: signature } },
      ]);
      const [notification] = normalizeAll(body);
      expect(notification).toMatchObject({ amount: undefined, currency: undefined });
    });

    it('signs the UTF-8 bytes of non-ASCII references', () => {
      const item = adyenNotificationItem('AUTHORISATION', { merchantReference: 'заказ-№7' });
      expect(normalizeOne(item).merchantRef).toBe('заказ-№7');
    });
  });

  describe('verify', () => {
    it('accepts a three-item request signed by the official library', () => {
      const body = requestBody(THREE_ITEMS.map((item) => officiallySigned(item)));
      expect(() => provider().verify(delivery(body))).not.toThrow();
    });

    it('rejects the whole request when one item among good ones is signed with another key', () => {
      const items = [
        officiallySigned(THREE_ITEMS[0]),
        officiallySigned(THREE_ITEMS[1], OLD_KEY),
        officiallySigned(THREE_ITEMS[2]),
      ];
      const error = rejection(() => provider().verify(delivery(requestBody(items))));
      expect(error).toMatchObject({ name: 'WebhookVerificationError', reason: 'bad_signature' });
      expect(error.message).toContain('item 1');
      expect(error.message).toContain(items[1].pspReference);
    });

    it('rejects the whole request when one item among good ones is unsigned', () => {
      const items = [officiallySigned(THREE_ITEMS[0]), THREE_ITEMS[1] as Item];
      expect(rejection(() => provider().verify(delivery(requestBody(items))))).toMatchObject({
        reason: 'missing_signature',
        message: expect.stringContaining('switch on HMAC signing'),
      });
    });

    it('rejects an item whose amount was changed after signing', () => {
      const signed = officiallySigned(THREE_ITEMS[0]);
      const tampered = { ...signed, amount: { value: 1, currency: 'EUR' } };
      expect(validator.validateHMAC(tampered as unknown as NotificationRequestItem, KEY)).toBe(
        false,
      );
      expect(rejection(() => provider().verify(delivery(requestBody([tampered]))))).toMatchObject({
        reason: 'bad_signature',
      });
    });

    it.each([
      ['pspReference', { pspReference: 'ZZZZZZZZZZZZZZZZ' }],
      ['originalReference', { originalReference: 'ZZZZZZZZZZZZZZZZ' }],
      ['merchantAccountCode', { merchantAccountCode: 'OtherAccount' }],
      ['merchantReference', { merchantReference: 'order-9999' }],
      ['currency', { amount: { value: 1130, currency: 'USD' } }],
      ['eventCode', { eventCode: 'REFUND' }],
      ['success', { success: 'false' }],
    ])('rejects an item whose %s was changed after signing', (_field, change) => {
      const tampered = { ...officiallySigned(THREE_ITEMS[1]), ...change } as Item;
      expect(rejection(() => provider().verify(delivery(requestBody([tampered]))))).toMatchObject({
        reason: 'bad_signature',
      });
    });

    it('does not sign fields outside the eight, as Adyen does not', () => {
      const signed = officiallySigned(THREE_ITEMS[0]);
      const changed = { ...signed, reason: 'changed', eventDate: '2030-01-01T00:00:00+01:00' };
      expect(() => provider().verify(delivery(requestBody([changed])))).not.toThrow();
    });

    it('rejects an item signed with another key, without echoing key or signature', () => {
      const signed = officiallySigned(THREE_ITEMS[0], OLD_KEY);
      const error = rejection(() => provider().verify(delivery(requestBody([signed]))));
      expect(error.reason).toBe('bad_signature');
      expect(error.message).not.toContain(KEY);
      expect(error.message).not.toContain(OLD_KEY);
      expect(error.message).not.toContain(signed.additionalData?.hmacSignature);
    });

    it('accepts items signed with any key of a rotation list, even mixed in one request', () => {
      const rotating = provider({ hmacKey: [OLD_KEY, KEY] });
      const body = requestBody([
        officiallySigned(THREE_ITEMS[0], OLD_KEY),
        officiallySigned(THREE_ITEMS[1], KEY),
      ]);
      expect(() => rotating.verify(delivery(body))).not.toThrow();
    });

    it('accepts a lower-case hex key (the same bytes)', () => {
      const body = requestBody([officiallySigned(THREE_ITEMS[0])]);
      expect(() => provider({ hmacKey: KEY.toLowerCase() }).verify(delivery(body))).not.toThrow();
    });

    it('has no timestamp, so the receive time does not matter', () => {
      const request = {
        ...delivery(requestBody([officiallySigned(THREE_ITEMS[0])])),
        receivedAt: new Date('2001-01-01T00:00:00Z'),
      };
      expect(() => provider().verify(request)).not.toThrow();
    });

    it.each([
      ['empty', ''],
      ['null', null],
    ])('treats an %s hmacSignature as missing', (_label, hmacSignature) => {
      const item = { ...THREE_ITEMS[0], additionalData: { hmacSignature } } as unknown as Item;
      expect(rejection(() => provider().verify(delivery(requestBody([item]))))).toMatchObject({
        reason: 'missing_signature',
      });
    });

    it.each([
      ['hex', createHmac('sha256', 'k').update('x').digest('hex')],
      ['too short', 'coqCmt/IZ4E3CzPvMY8zTjQVL5hYJUiBRg8UU+iCWo='],
      ['not base64', '!'.repeat(43) + '='],
      ['a number', 42],
    ])('rejects a malformed hmacSignature (%s) as bad_signature', (_label, hmacSignature) => {
      const item = { ...THREE_ITEMS[0], additionalData: { hmacSignature } } as unknown as Item;
      expect(rejection(() => provider().verify(delivery(requestBody([item]))))).toMatchObject({
        reason: 'bad_signature',
      });
    });

    it('refuses a signed item for a merchant account the endpoint does not accept', () => {
      const body = requestBody([
        officiallySigned(THREE_ITEMS[0]),
        officiallySigned(adyenNotificationItem('CAPTURE', { merchantAccountCode: 'ShopUS' })),
      ]);
      expect(() => provider({ merchantAccount: 'ShopCompanyECOM' }).verify(delivery(body))).toThrow(
        /item 1 .* is for merchant account "ShopUS"/,
      );
      expect(() =>
        provider({ merchantAccount: ['ShopCompanyECOM', 'ShopUS'] }).verify(delivery(body)),
      ).not.toThrow();
    });

    it.each([
      ['not JSON', 'notificationItems=1'],
      ['a JSON array', '[]'],
      ['without notificationItems', '{"live":"false"}'],
      ['with an empty notificationItems', '{"live":"false","notificationItems":[]}'],
      ['with notificationItems not a list', '{"live":"false","notificationItems":{}}'],
      ['with a string item', '{"live":"false","notificationItems":["x"]}'],
      ['with an item lacking NotificationRequestItem', '{"live":"false","notificationItems":[{}]}'],
    ])('refuses a body %s with WebhookPayloadError', (_label, body) => {
      expect(rejection(() => provider().verify(delivery(body)))).toMatchObject({
        name: 'WebhookPayloadError',
        reason: 'invalid_payload',
      });
    });

    it.each([
      ['no pspReference', { pspReference: undefined }],
      ['an empty eventCode', { eventCode: '' }],
      ['no merchantAccountCode', { merchantAccountCode: undefined }],
      ['success "yes"', { success: 'yes' }],
      ['a numeric merchantReference', { merchantReference: 1042 }],
      ['an object originalReference', { originalReference: { id: 'x' } }],
      ['a string amount value', { amount: { value: '1130', currency: 'EUR' } }],
      ['a fractional amount value', { amount: { value: 11.3, currency: 'EUR' } }],
    ])('refuses an item with %s, naming the item', (_label, change) => {
      const item = { ...officiallySigned(THREE_ITEMS[0]), ...change } as unknown as Item;
      const body = requestBody([officiallySigned(THREE_ITEMS[1]), item]);
      const error = rejection(() => provider().verify(delivery(body)));
      expect(error.name).toBe('WebhookPayloadError');
      expect(error.message).toMatch(/^Adyen notification item 1 is not valid: /);
    });
  });

  describe('configuration', () => {
    function configError(options: Partial<AdyenEndpointOptions>): string {
      const error = rejection(() =>
        adyenEndpoint({ name: 'adyen', ...options } as AdyenEndpointOptions),
      );
      expect(error.name).toBe(WebhookConfigurationError.name);
      return error.message;
    }

    it('answers 200 with the body [accepted]', () => {
      const endpoint = adyenEndpoint({ name: 'adyen', hmacKey: KEY });
      expect(endpoint.provider.kind).toBe('adyen');
      expect(endpoint.acknowledgement).toEqual({
        status: 200,
        body: '[accepted]',
        contentType: 'text/plain; charset=utf-8',
      });
      expect(endpoint.verifyWithProvider).toBe(false);
    });

    it('requires a key and refuses blank ones', () => {
      expect(configError({ hmacKey: undefined })).toMatch(
        /"adyen" \(adyen\) has no usable hmacKey/,
      );
      expect(configError({ hmacKey: [KEY, ' '] })).toMatch(/no usable hmacKey/);
    });

    it.each([
      ['not hex', 'whsec_' + KEY.slice(6)],
      ['of odd length', KEY.slice(1)],
      ['base64', Buffer.from(KEY, 'hex').toString('base64')],
      ['padded with a space', `${KEY} `],
    ])('refuses a key that is %s, naming the fix and not the key', (_label, hmacKey) => {
      const message = configError({ hmacKey });
      expect(message).toMatch(/hmacKey is not a hex string of even length/);
      expect(message).toMatch(/Customer Area → Developers → Webhooks/);
      expect(message).not.toContain(hmacKey.trim());
    });

    it('names the bad entry of a rotation list', () => {
      expect(configError({ hmacKey: [KEY, 'xyz'] })).toMatch(/hmacKey\[1\] is not a hex string/);
    });

    it.each([[''], [[]], [['ShopEU', '']], [[42]]])(
      'refuses merchantAccount %p',
      (merchantAccount) => {
        expect(configError({ hmacKey: KEY, merchantAccount: merchantAccount as string[] })).toMatch(
          /merchantAccount must be a merchant account name or a list of them/,
        );
      },
    );
  });

  describe('normalize', () => {
    it('returns one notification per item, in order, for a three-item request', () => {
      const notifications = normalizeAll(requestBody(THREE_ITEMS.map((i) => officiallySigned(i))));
      expect(notifications.map((n) => [n.eventId, n.type])).toEqual([
        [`${ADYEN_PAYMENT_PSP_REFERENCE}:AUTHORISATION:true`, 'payment.authorized'],
        [`${THREE_ITEMS[1].pspReference}:CAPTURE:true`, 'payment.succeeded'],
        [`${THREE_ITEMS[2].pspReference}:REFUND:true`, 'refund.succeeded'],
      ]);
      expect(notifications.map((n) => n.paymentRef)).toEqual([
        ADYEN_PAYMENT_PSP_REFERENCE,
        ADYEN_PAYMENT_PSP_REFERENCE,
        ADYEN_PAYMENT_PSP_REFERENCE,
      ]);
    });

    it('maps an authorisation with every field a handler reads', () => {
      const item = officiallySigned(adyenNotificationItem('AUTHORISATION'));
      const [notification] = normalizeAll(requestBody([item]));
      const payload = { live: 'false', notificationItems: [{ NotificationRequestItem: item }] };
      expect(notification).toEqual({
        eventId: `${ADYEN_PAYMENT_PSP_REFERENCE}:AUTHORISATION:true`,
        type: 'payment.authorized',
        nativeType: 'AUTHORISATION',
        paymentRef: ADYEN_PAYMENT_PSP_REFERENCE,
        merchantRef: 'order-1042',
        amount: 1130,
        currency: 'EUR',
        status: 'true',
        occurredAt: new Date('2025-03-14T09:15:32Z'),
        payload,
        storedBody: JSON.stringify(payload),
      });
    });

    it.each([
      ['AUTHORISATION', 'true', 'payment.authorized'],
      ['AUTHORISATION', 'false', 'payment.failed'],
      ['CAPTURE', 'true', 'payment.succeeded'],
      ['CAPTURE', 'false', 'adyen:CAPTURE'],
      ['CAPTURE_FAILED', 'true', 'adyen:CAPTURE_FAILED'],
      ['CANCELLATION', 'true', 'payment.canceled'],
      ['CANCELLATION', 'false', 'adyen:CANCELLATION'],
      ['TECHNICAL_CANCEL', 'true', 'payment.canceled'],
      ['CANCEL_OR_REFUND', 'true', 'adyen:CANCEL_OR_REFUND'],
      ['REFUND', 'true', 'refund.succeeded'],
      ['REFUND', 'false', 'refund.failed'],
      ['REFUND_FAILED', 'true', 'refund.failed'],
      ['REFUNDED_REVERSED', 'true', 'adyen:REFUNDED_REVERSED'],
      ['NOTIFICATION_OF_CHARGEBACK', 'true', 'adyen:NOTIFICATION_OF_CHARGEBACK'],
      ['CHARGEBACK', 'true', 'dispute.opened'],
      ['CHARGEBACK_REVERSED', 'true', 'dispute.closed'],
      ['SECOND_CHARGEBACK', 'true', 'dispute.closed'],
      ['PREARBITRATION_WON', 'true', 'dispute.closed'],
      ['PREARBITRATION_LOST', 'true', 'dispute.closed'],
      ['REQUEST_FOR_INFORMATION', 'true', 'adyen:REQUEST_FOR_INFORMATION'],
      ['EXPIRE', 'true', 'adyen:EXPIRE'],
      ['OFFER_CLOSED', 'true', 'adyen:OFFER_CLOSED'],
      ['REPORT_AVAILABLE', 'true', 'adyen:REPORT_AVAILABLE'],
      ['constructor', 'true', 'adyen:constructor'],
    ])('maps %s with success %s to %s', (eventCode, success, type) => {
      const item = adyenNotificationItem(eventCode, { success: success as 'true' | 'false' });
      expect(normalizeOne(item)).toMatchObject({
        type,
        nativeType: eventCode,
        status: success,
        eventId: `${item.pspReference}:${eventCode}:${success}`,
      });
    });

    it('keys success and failure of one modification apart (Adyen may correct success)', () => {
      const refused = normalizeOne(adyenNotificationItem('REFUND', { success: 'false' }));
      const refunded = normalizeOne(adyenNotificationItem('REFUND'));
      expect(refused.eventId).not.toBe(refunded.eventId);
    });

    it('accepts a boolean success flag, signed as "true"/"false" like the official library', () => {
      const item = adyenNotificationItem('AUTHORISATION', { success: false });
      expect(adyenSigningString(item)).toMatch(/:AUTHORISATION:false$/);
      expect(normalizeOne(item)).toMatchObject({ type: 'payment.failed', status: 'false' });
    });

    it('refers modifications to the payment (originalReference) and payments to themselves', () => {
      const chargeback = adyenNotificationItem('CHARGEBACK');
      expect(normalizeOne(chargeback)).toMatchObject({
        paymentRef: ADYEN_PAYMENT_PSP_REFERENCE,
        eventId: `${chargeback.pspReference}:CHARGEBACK:true`,
      });
      expect(chargeback.pspReference).not.toBe(ADYEN_PAYMENT_PSP_REFERENCE);
      const empty = adyenNotificationItem('AUTHORISATION', { originalReference: '' });
      expect(normalizeOne(empty).paymentRef).toBe(ADYEN_PAYMENT_PSP_REFERENCE);
    });

    it('upper-cases the currency and leaves a missing merchantReference and eventDate unset', () => {
      const item = adyenNotificationItem('CAPTURE', {
        amount: { value: 0, currency: 'eur' },
        merchantReference: undefined,
        eventDate: undefined,
      });
      expect(normalizeOne(item)).toMatchObject({
        amount: 0,
        currency: 'EUR',
        merchantRef: undefined,
        occurredAt: undefined,
      });
    });

    describe('stored body', () => {
      const items = THREE_ITEMS.map((item) => officiallySigned(item));
      const notifications = normalizeAll(requestBody(items, 'true'));

      it('is the one-item request Adyen would have sent for each item alone', () => {
        notifications.forEach((notification, i) => {
          expect(JSON.parse(notification.storedBody as string)).toEqual({
            live: 'true',
            notificationItems: [{ NotificationRequestItem: items[i] }],
          });
          expect(notification.payload).toEqual(JSON.parse(notification.storedBody as string));
        });
      });

      it('normalizes back to the same single notification', () => {
        for (const notification of notifications) {
          const again = notificationsOf(provider().normalize(delivery(notification.storedBody!)));
          expect(again).toEqual([notification]);
        }
      });

      it('still passes verification, and the official validateHMAC, on its own', () => {
        for (const notification of notifications) {
          expect(() => provider().verify(delivery(notification.storedBody!))).not.toThrow();
          const stored = JSON.parse(notification.storedBody!) as {
            notificationItems: { NotificationRequestItem: NotificationRequestItem }[];
          };
          expect(
            validator.validateHMAC(stored.notificationItems[0].NotificationRequestItem, KEY),
          ).toBe(true);
        }
      });

      it('is the same whether an item arrives alone or batched with others', () => {
        const [alone] = normalizeAll(requestBody([items[1]], 'true'));
        expect(alone.storedBody).toBe(notifications[1].storedBody);
      });

      it('leaves out live when the request has none', () => {
        const [notification] = normalizeAll(requestBody([items[0]], null));
        expect(JSON.parse(notification.storedBody!)).not.toHaveProperty('live');
      });
    });
  });
});
