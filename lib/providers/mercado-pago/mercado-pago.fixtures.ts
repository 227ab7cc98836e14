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
  /** `payment.created` of the `payment` topic (kept native: it says only that a payment exists). */
  paymentCreated(options: MercadoPagoPaymentFixtureOptions = {}): MercadoPagoWebhookNotification {
    return payment('payment.created', options);
  },

  /** `payment.updated` (kept native: ask the API what changed, `ctx.fetchStatus()`). */
  paymentUpdated(options: MercadoPagoPaymentFixtureOptions = {}): MercadoPagoWebhookNotification {
    return payment('payment.updated', options);
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
