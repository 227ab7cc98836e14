import { randomInt } from 'node:crypto';
import { formatMinorUnits } from '../../core/minor-units';

/** A Mercado Pago Webhooks notification as Mercado Pago posts it. */
export interface MercadoPagoWebhookNotification {
  /** The notification's id, the same on every retry. */
  id: number;
  live_mode: boolean;
  type: string;
  date_created: string;
  user_id: number;
  api_version: string;
  action: string;
  application_id?: string;
  data: { id: string; [field: string]: unknown };
}

/** What every fixture is about; every field has a realistic default. */
export interface MercadoPagoFixtureOptions {
  /** The notification's `id`. @default a random 11-digit number */
  notificationId?: number;
  /** When Mercado Pago created the notified resource. @default now */
  createdAt?: Date;
  /** `live_mode`. @default true */
  liveMode?: boolean;
  /** The seller's `user_id`. @default 1197520450 */
  userId?: number;
}

/** Options of the `payment` topic's fixtures. */
export interface MercadoPagoPaymentFixtureOptions extends MercadoPagoFixtureOptions {
  /** The payment's id (`data.id`). @default a random 11-digit number, as text */
  paymentId?: string;
}

/** A refund of a payment, as `GET /v1/payments/{id}` lists it in `refunds`. */
export interface MercadoPagoRefundFixtureOptions {
  /** The refund's id. @default a random 10-digit number */
  id?: number;
  /** The refunded amount in minor units. */
  amount: number;
  /** `approved`, `in_process`, `rejected`, `cancelled`. @default 'approved' */
  status?: string;
  /** When the refund was made. @default now */
  createdAt?: Date;
}

/** Options of `mercadoPagoFixtures.payment()`, a payment as the Mercado Pago API returns it. */
export interface MercadoPagoApiPaymentFixtureOptions {
  /** The payment's id, the `data.id` of its notifications. @default a random 11-digit number, as text */
  paymentId?: string;
  /** `approved`, `authorized`, `pending`, `in_process`, `rejected`, `cancelled`, `refunded`, `charged_back`, `in_mediation`. @default 'approved' */
  status?: string;
  /** `transaction_amount` in minor units, written as the API's decimal number. @default 1999 */
  amount?: number;
  /** `currency_id`. @default 'BRL' */
  currency?: string;
  /** Your order id, `external_reference`. @default 'order-1001' */
  orderId?: string;
  /** The payment's refunds; `transaction_amount_refunded` is their approved total. @default none */
  refunds?: readonly MercadoPagoRefundFixtureOptions[];
  /** When the payment was created (and approved). @default now */
  createdAt?: Date;
}

/** Options of the Orders API fixtures. */
export interface MercadoPagoOrderFixtureOptions extends MercadoPagoFixtureOptions {
  /** Your order id, sent to Mercado Pago as the order's `external_reference`. @default 'order-1001' */
  orderId?: string;
  /** The order's id (`data.id`). @default `ORD01` and 26 random characters */
  mercadoPagoOrderId?: string;
  /**
   * The order's total in minor units, written as Mercado Pago's decimal string.
   * @default 1999
   */
  amount?: number;
  /** The currency `amount` is in, for its decimals; not sent (orders carry none). @default 'BRL' */
  currency?: string;
}

// NOTE: Crockford's base32, the alphabet of the ULIDs in Mercado Pago's order and payment ids.
const ULID = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const USER_ID = 1197520450;
const APPLICATION_ID = '8339021212080291';

function digits(count: number): string {
  let text = String(1 + randomInt(9));
  while (text.length < count) text += String(randomInt(10));
  return text;
}

function ulidLike(prefix: string): string {
  let id = prefix;
  while (id.length < prefix.length + 26) id += ULID[randomInt(ULID.length)];
  return id;
}

function envelope(
  options: MercadoPagoFixtureOptions,
  type: string,
  action: string,
  data: MercadoPagoWebhookNotification['data'],
): MercadoPagoWebhookNotification {
  return {
    id: options.notificationId ?? Number(digits(11)),
    live_mode: options.liveMode ?? true,
    type,
    date_created: (options.createdAt ?? new Date()).toISOString(),
    user_id: options.userId ?? USER_ID,
    api_version: 'v1',
    action,
    data,
  };
}

function payment(action: string, options: MercadoPagoPaymentFixtureOptions) {
  return envelope(options, 'payment', action, { id: options.paymentId ?? digits(11) });
}

/** Minor units as the API's decimal number: 1999 BRL → 19.99, 15990 CLP → 15990. */
function decimalNumber(amount: number, currency: string): number {
  return Number(formatMinorUnits(amount, currency));
}

function apiPayment(options: MercadoPagoApiPaymentFixtureOptions): Record<string, unknown> {
  const currency = options.currency ?? 'BRL';
  const status = options.status ?? 'approved';
  const at = (options.createdAt ?? new Date()).toISOString();
  const id = Number(options.paymentId ?? digits(11));
  const refunds = (options.refunds ?? []).map((refund) => ({
    id: refund.id ?? Number(digits(10)),
    payment_id: id,
    amount: decimalNumber(refund.amount, currency),
    metadata: {},
    source: { id: String(USER_ID), name: 'Seller', type: 'collector' },
    date_created: (refund.createdAt ?? new Date()).toISOString(),
    unique_sequence_number: null,
    refund_mode: 'standard',
    adjustment_amount: 0,
    status: refund.status ?? 'approved',
    reason: null,
    labels: [],
    amount_refunded_to_payer: null,
  }));
  const refunded = (options.refunds ?? [])
    .filter((refund) => (refund.status ?? 'approved') === 'approved')
    .reduce((sum, refund) => sum + refund.amount, 0);
  const approved = ['approved', 'authorized', 'refunded', 'charged_back', 'in_mediation'];
  return {
    id,
    date_created: at,
    date_approved: approved.includes(status) ? at : null,
    date_last_updated: refunds.at(-1)?.date_created ?? at,
    money_release_date: null,
    operation_type: 'regular_payment',
    issuer_id: '24',
    payment_method_id: 'master',
    payment_type_id: 'credit_card',
    status,
    status_detail:
      status === 'approved' ? (refunded > 0 ? 'partially_refunded' : 'accredited') : status,
    currency_id: currency,
    description: 'Order',
    live_mode: true,
    collector_id: USER_ID,
    payer: { id: '1280931564', email: 'buyer@example.com', type: 'customer' },
    metadata: {},
    external_reference: options.orderId ?? 'order-1001',
    transaction_amount: decimalNumber(options.amount ?? 1999, currency),
    transaction_amount_refunded: decimalNumber(refunded, currency),
    coupon_amount: 0,
    installments: 1,
    transaction_details: {
      net_received_amount: decimalNumber(options.amount ?? 1999, currency),
      total_paid_amount: decimalNumber(options.amount ?? 1999, currency),
      installment_amount: decimalNumber(options.amount ?? 1999, currency),
    },
    captured: true,
    binary_mode: false,
    refunds,
  };
}

/** The Orders API's order states and what their notifications say of the payment. */
const ORDER_STATES = {
  'order.processed': { status: 'processed', status_detail: 'accredited', payment: 'processed' },
  'order.failed': { status: 'failed', status_detail: 'failed', payment: 'failed' },
  'order.canceled': { status: 'canceled', status_detail: 'canceled', payment: 'canceled' },
  'order.expired': { status: 'expired', status_detail: 'expired', payment: 'expired' },
  'order.refunded': { status: 'refunded', status_detail: 'refunded', payment: 'refunded' },
  'order.action_required': {
    status: 'action_required',
    status_detail: 'waiting_payment',
    payment: 'action_required',
  },
} as const;

function order(action: keyof typeof ORDER_STATES, options: MercadoPagoOrderFixtureOptions) {
  const state = ORDER_STATES[action];
  const amount = formatMinorUnits(options.amount ?? 1999, options.currency ?? 'BRL');
  const paid = action === 'order.processed' || action === 'order.refunded';
  const notification = envelope(options, 'order', action, {
    external_reference: options.orderId ?? 'order-1001',
    id: options.mercadoPagoOrderId ?? ulidLike('ORD01'),
    status: state.status,
    status_detail: state.status_detail,
    total_paid_amount: paid ? amount : '0.00',
    transactions: {
      payments: [
        {
          amount,
          id: ulidLike('PAY01'),
          paid_amount: paid ? amount : '0.00',
          payment_method: { id: 'master', installments: 1, type: 'credit_card' },
          reference: { id: digits(11) },
          status: state.payment,
          status_detail: state.status_detail,
        },
      ],
    },
    type: 'online',
    version: 3,
  });
  return { ...notification, application_id: APPLICATION_ID };
}

/**
 * Builders of Mercado Pago Webhooks notifications in the shape Mercado Pago sends, to sign with
 * `signMercadoPagoDelivery()`.
 * @example
 * mercadoPagoFixtures.orderProcessed({ orderId: 'order-42', amount: 1999, currency: 'BRL' })
 */
export const mercadoPagoFixtures = {
  /**
   * `payment.created` of the `payment` topic: it says only that a payment exists. An endpoint
   * with `api` reads the payment (`payment()` below) from the API; without it, kept native.
   */
  paymentCreated(options: MercadoPagoPaymentFixtureOptions = {}): MercadoPagoWebhookNotification {
    return payment('payment.created', options);
  },

  /** `payment.updated`: the payment changed; read from the API with `api`, else kept native. */
  paymentUpdated(options: MercadoPagoPaymentFixtureOptions = {}): MercadoPagoWebhookNotification {
    return payment('payment.updated', options);
  },

  /**
   * A payment as `GET /v1/payments/{id}` returns it, for a fake of the Mercado Pago API: what an
   * endpoint with `api` stores for a `payment` notification.
   * @example
   * mercadoPagoFixtures.payment({ paymentId: '1319485746', status: 'approved', orderId: 'order-42' })
   */
  payment(options: MercadoPagoApiPaymentFixtureOptions = {}): Record<string, unknown> {
    return apiPayment(options);
  },

  /** Orders API `order.processed` (→ `payment.succeeded`). */
  orderProcessed(options: MercadoPagoOrderFixtureOptions = {}): MercadoPagoWebhookNotification {
    return order('order.processed', options);
  },

  /** Orders API `order.failed` (→ `payment.failed`). */
  orderFailed(options: MercadoPagoOrderFixtureOptions = {}): MercadoPagoWebhookNotification {
    return order('order.failed', options);
  },

  /** Orders API `order.canceled` (→ `payment.canceled`). */
  orderCanceled(options: MercadoPagoOrderFixtureOptions = {}): MercadoPagoWebhookNotification {
    return order('order.canceled', options);
  },

  /** Orders API `order.expired` (→ `payment.canceled`). */
  orderExpired(options: MercadoPagoOrderFixtureOptions = {}): MercadoPagoWebhookNotification {
    return order('order.expired', options);
  },

  /** Orders API `order.refunded` (→ `refund.succeeded`). */
  orderRefunded(options: MercadoPagoOrderFixtureOptions = {}): MercadoPagoWebhookNotification {
    return order('order.refunded', options);
  },

  /** Orders API `order.action_required` (kept native: the buyer still has to act). */
  orderActionRequired(
    options: MercadoPagoOrderFixtureOptions = {},
  ): MercadoPagoWebhookNotification {
    return order('order.action_required', options);
  },
};
