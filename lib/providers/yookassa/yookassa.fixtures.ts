import { YooKassaNotificationObject } from './yookassa.provider';

/** The payment id the fixtures use (YooKassa ids look like UUIDs). */
export const YOOKASSA_PAYMENT_ID = '2f6a8c1e-000f-5000-9000-1b7d3e5a9c42';

/** The refund id the fixtures use. */
export const YOOKASSA_REFUND_ID = '2f6a9d07-0015-5000-8000-14c5e3b7a1d8';

/** The application's order id the fixtures carry in `metadata.orderId`. */
export const YOOKASSA_ORDER_ID = 'order-1042';

/** Payment statuses of YooKassa API v3. */
export type YooKassaPaymentStatus = 'pending' | 'waiting_for_capture' | 'succeeded' | 'canceled';

/**
 * A realistic YooKassa payment object of 100.00 RUB by bank card for `order-1042` in the given
 * status, with the fields the API returns for that status (`captured_at` once succeeded,
 * `cancellation_details` once canceled, `expires_at` while waiting for capture).
 * @example
 * yookassaDelivery({ event: 'payment.canceled', object: yookassaPayment('canceled') })
 */
export function yookassaPayment(
  status: YooKassaPaymentStatus = 'succeeded',
  overrides: Partial<YooKassaNotificationObject> = {},
): YooKassaNotificationObject {
  const paid = status === 'succeeded' || status === 'waiting_for_capture';
  return {
    id: YOOKASSA_PAYMENT_ID,
    status,
    paid,
    amount: { value: '100.00', currency: 'RUB' },
    ...(status === 'succeeded' ? { income_amount: { value: '96.50', currency: 'RUB' } } : {}),
    description: 'Заказ №1042',
    recipient: { account_id: '100500', gateway_id: '100700' },
    payment_method: {
      type: 'bank_card',
      id: YOOKASSA_PAYMENT_ID,
      saved: false,
      title: 'Bank card *4444',
      card: {
        first6: '555555',
        last4: '4444',
        expiry_month: '07',
        expiry_year: '2030',
        card_type: 'MasterCard',
        issuer_country: 'RU',
      },
    },
    created_at: '2025-03-14T09:15:32.318Z',
    ...(status === 'succeeded' ? { captured_at: '2025-03-14T09:16:05.104Z' } : {}),
    ...(status === 'waiting_for_capture' ? { expires_at: '2025-03-21T09:16:05.104Z' } : {}),
    ...(status === 'canceled'
      ? { cancellation_details: { party: 'payment_network', reason: 'insufficient_funds' } }
      : {}),
    test: false,
    refundable: status === 'succeeded',
    ...(status === 'succeeded' ? { refunded_amount: { value: '0.00', currency: 'RUB' } } : {}),
    metadata: { orderId: YOOKASSA_ORDER_ID },
    ...overrides,
  };
}

/**
 * A realistic YooKassa refund object: 100.00 RUB refunded on the fixtures' payment.
 * @example
 * yookassaDelivery({ event: 'refund.succeeded', object: yookassaRefund() })
 */
export function yookassaRefund(
  overrides: Partial<YooKassaNotificationObject> = {},
): YooKassaNotificationObject {
  return {
    id: YOOKASSA_REFUND_ID,
    payment_id: YOOKASSA_PAYMENT_ID,
    status: 'succeeded',
    created_at: '2025-03-15T11:02:47.517Z',
    amount: { value: '100.00', currency: 'RUB' },
    description: 'Возврат по заказу №1042',
    ...overrides,
  };
}

/**
 * A realistic YooKassa payout object (`payout.succeeded`, `payout.canceled`).
 * @example
 * yookassaDelivery({ event: 'payout.succeeded', object: yookassaPayout() })
 */
export function yookassaPayout(
  overrides: Partial<YooKassaNotificationObject> = {},
): YooKassaNotificationObject {
  return {
    id: 'po-2f6b1a3c-0003-5000-9000-0e1166498fda',
    status: 'succeeded',
    amount: { value: '320.00', currency: 'RUB' },
    payout_destination: {
      type: 'bank_card',
      card: { first6: '220220', last4: '4477', card_type: 'Mir', issuer_country: 'RU' },
    },
    description: 'Выплата по договору 37',
    created_at: '2025-03-16T08:40:11.402Z',
    test: false,
    ...overrides,
  };
}

/**
 * A realistic YooKassa Safe Deal object (`deal.closed`).
 * @example
 * yookassaDelivery({ event: 'deal.closed', object: yookassaDeal() })
 */
export function yookassaDeal(
  overrides: Partial<YooKassaNotificationObject> = {},
): YooKassaNotificationObject {
  return {
    id: 'dl-2f6b2c4d-0022-5000-8000-01516a44b147',
    type: 'safe_deal',
    status: 'closed',
    fee_moment: 'payment_succeeded',
    balance: { value: '0.00', currency: 'RUB' },
    payout_balance: { value: '0.00', currency: 'RUB' },
    created_at: '2025-03-10T07:12:30.802Z',
    expires_at: '2025-06-08T07:12:30.802Z',
    test: false,
    ...overrides,
  };
}
