import { createHash } from 'node:crypto';
import { AdyenNotificationRequestItem } from './adyen.provider';

/**
 * The HMAC key of Adyen's documented signature example; items signed with it can be checked
 * against the documentation. Use your own test key for anything else.
 */
export const ADYEN_EXAMPLE_HMAC_KEY =
  '44782DEF547AAA06C910C43932B1EB0C71FC68D9D0C057550C48EC2ACF6BA056';

/** The `pspReference` of the payment the fixtures' modifications refer to. */
export const ADYEN_PAYMENT_PSP_REFERENCE = 'QFQTPCQ8HXSKGK82';

/** The merchant account of the fixtures. */
export const ADYEN_MERCHANT_ACCOUNT = 'ShopCompanyECOM';

/** The application's order id the fixtures carry as `merchantReference`. */
export const ADYEN_MERCHANT_REFERENCE = 'order-1042';

// NOTE: event codes whose pspReference is the payment itself; every other code is a modification
// (capture, refund, dispute, …) with a pspReference of its own and originalReference = the payment.
const PAYMENT_LEVEL_CODES = new Set(['AUTHORISATION', 'OFFER_CLOSED', 'PENDING']);

/** A 16-character reference like Adyen's, the same for the same seed. */
function pspReferenceFor(seed: string): string {
  const digest = createHash('sha256').update(seed).digest();
  const alphabet = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';
  return Array.from(digest.subarray(0, 16), (byte) => alphabet[byte % alphabet.length]).join('');
}

/**
 * A realistic unsigned `NotificationRequestItem` of an Adyen standard webhook: EUR 11.30 by
 * Visa for `order-1042` on `ShopCompanyECOM`, `success: 'true'`. A modification (any code but
 * AUTHORISATION, OFFER_CLOSED and PENDING) gets its own `pspReference` and the payment's as
 * `originalReference`. Sign it with `signAdyenDelivery()`.
 * @example
 * adyenNotificationItem('REFUND', { success: 'false', reason: 'Insufficient balance' })
 */
export function adyenNotificationItem(
  eventCode = 'AUTHORISATION',
  overrides: Partial<AdyenNotificationRequestItem> = {},
): AdyenNotificationRequestItem {
  const paymentLevel = PAYMENT_LEVEL_CODES.has(eventCode);
  const item: AdyenNotificationRequestItem = {
    additionalData: paymentLevel
      ? { authCode: '053932', cardSummary: '1111', expiryDate: '03/2030' }
      : {},
    amount: { currency: 'EUR', value: 1130 },
    eventCode,
    eventDate: '2025-03-14T10:15:32+01:00',
    merchantAccountCode: ADYEN_MERCHANT_ACCOUNT,
    merchantReference: ADYEN_MERCHANT_REFERENCE,
    ...(paymentLevel ? {} : { originalReference: ADYEN_PAYMENT_PSP_REFERENCE }),
    paymentMethod: 'visa',
    pspReference: paymentLevel ? ADYEN_PAYMENT_PSP_REFERENCE : pspReferenceFor(eventCode),
    reason: paymentLevel ? '053932:1111:03/2030' : '',
    success: 'true',
    ...(eventCode === 'AUTHORISATION' ? { operations: ['CANCEL', 'CAPTURE', 'REFUND'] } : {}),
  };
  return { ...item, ...overrides };
}

/** Adyen's documented signature example item (sign it with `ADYEN_EXAMPLE_HMAC_KEY`). */
export const ADYEN_EXAMPLE_ITEM: AdyenNotificationRequestItem = Object.freeze({
  pspReference: '7914073381342284',
  merchantAccountCode: 'TestMerchant',
  merchantReference: 'TestPayment-1407325143704',
  amount: Object.freeze({ value: 1130, currency: 'EUR' }),
  eventCode: 'AUTHORISATION',
  success: 'true',
});

/** The signature Adyen documents for `ADYEN_EXAMPLE_ITEM` under `ADYEN_EXAMPLE_HMAC_KEY`. */
export const ADYEN_EXAMPLE_SIGNATURE = 'coqCmt/IZ4E3CzPvMY8zTjQVL5hYJUiBRg8UU+iCWo0=';
