import { randomInt } from 'node:crypto';

/** A Razorpay webhook event as Razorpay posts it. */
export interface RazorpayWebhookEvent {
  entity: 'event';
  account_id: string;
  event: string;
  /** The names of the entities under `payload`. */
  contains: string[];
  /** Each entity as `{ entity: {...} }` under its name. */
  payload: Record<string, { entity: Record<string, unknown> }>;
  /** When Razorpay created the event, Unix seconds; the same on every retry. */
  created_at: number;
}

/** Razorpay payment statuses. */
export type RazorpayPaymentStatus = 'created' | 'authorized' | 'captured' | 'refunded' | 'failed';

/** Razorpay refund statuses. */
export type RazorpayRefundStatus = 'pending' | 'processed' | 'failed';

/** The dispute events, by the last part of their type (`payment.dispute.<phase>`). */
export type RazorpayDisputeEvent =
  'created' | 'won' | 'lost' | 'closed' | 'under_review' | 'action_required';

/** What a fixture is about; every field has a realistic default. */
export interface RazorpayFixtureOptions {
  /**
   * Your order id: the order's `receipt` and the payment's `notes.orderId`.
   * @default 'order-1001'
   */
  orderId?: string;
  /**
   * Amount of the payment in the currency's smallest unit (paise for INR).
   * @default 49900
   */
  amount?: number;
  /**
   * ISO 4217 code.
   * @default 'INR'
   */
  currency?: string;
  /** Razorpay's payment id. @default `pay_` and 14 random characters */
  paymentId?: string;
  /** Razorpay's order id. @default `order_` and 14 random characters */
  razorpayOrderId?: string;
  /** When Razorpay created the event (`created_at`). @default now */
  createdAt?: Date;
}

/** Options of the refund fixtures. */
export interface RazorpayRefundFixtureOptions extends RazorpayFixtureOptions {
  /** @default `rfnd_` and 14 random characters */
  refundId?: string;
  /** Amount refunded, smallest unit. @default the payment's amount */
  refundAmount?: number;
}

/** Options of the dispute fixtures. */
export interface RazorpayDisputeFixtureOptions extends RazorpayFixtureOptions {
  /** @default `disp_` and 14 random characters */
  disputeId?: string;
}

const ID_CHARACTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
// NOTE: a fixed merchant account, so every fixture of one test run is for the same account.
const ACCOUNT_ID = 'acc_Fo1tD8wXq2Kc7L';

function razorpayId(prefix: string): string {
  let id = `${prefix}_`;
  for (let i = 0; i < 14; i++) id += ID_CHARACTERS[randomInt(ID_CHARACTERS.length)];
  return id;
}

interface Resolved {
  orderId: string;
  amount: number;
  currency: string;
  paymentId: string;
  razorpayOrderId: string;
  createdAt: number;
}

function resolve(options: RazorpayFixtureOptions): Resolved {
  return {
    orderId: options.orderId ?? 'order-1001',
    amount: options.amount ?? 49900,
    currency: (options.currency ?? 'INR').toUpperCase(),
    paymentId: options.paymentId ?? razorpayId('pay'),
    razorpayOrderId: options.razorpayOrderId ?? razorpayId('order'),
    createdAt: Math.floor((options.createdAt ?? new Date()).getTime() / 1000),
  };
}

function event(
  o: Resolved,
  type: string,
  entities: Record<string, Record<string, unknown>>,
): RazorpayWebhookEvent {
  const payload: RazorpayWebhookEvent['payload'] = {};
  for (const [name, entity] of Object.entries(entities)) payload[name] = { entity };
  return {
    entity: 'event',
    account_id: ACCOUNT_ID,
    event: type,
    contains: Object.keys(entities),
    payload,
    created_at: o.createdAt,
  };
}

function payment(
  o: Resolved,
  status: RazorpayPaymentStatus,
  refunded = 0,
): Record<string, unknown> {
  const failed = status === 'failed';
  const captured = status === 'captured' || status === 'refunded';
  return {
    id: o.paymentId,
    entity: 'payment',
    amount: o.amount,
    currency: o.currency,
    status,
    order_id: o.razorpayOrderId,
    invoice_id: null,
    international: false,
    method: 'card',
    amount_refunded: refunded,
    amount_transferred: 0,
    refund_status: refunded === 0 ? null : refunded < o.amount ? 'partial' : 'full',
    captured,
    description: `Order ${o.orderId}`,
    card_id: 'card_DESp9fNnu0RoNc',
    card: {
      id: 'card_DESp9fNnu0RoNc',
      entity: 'card',
      name: 'Gaurav Kumar',
      last4: '1111',
      network: 'Visa',
      type: 'debit',
      issuer: null,
      international: false,
      emi: false,
      sub_type: 'consumer',
    },
    bank: null,
    wallet: null,
    vpa: null,
    email: 'gaurav.kumar@example.com',
    contact: '+919876543210',
    notes: { orderId: o.orderId },
    fee: captured ? Math.round(o.amount * 0.02) : null,
    tax: captured ? Math.round(o.amount * 0.0036) : null,
    error_code: failed ? 'BAD_REQUEST_ERROR' : null,
    error_description: failed ? 'Payment failed due to insufficient balance.' : null,
    error_source: failed ? 'customer' : null,
    error_step: failed ? 'payment_authorization' : null,
    error_reason: failed ? 'insufficient_balance' : null,
    acquirer_data: { auth_code: failed ? null : '828553' },
    created_at: o.createdAt - 5,
  };
}

function order(o: Resolved): Record<string, unknown> {
  return {
    id: o.razorpayOrderId,
    entity: 'order',
    amount: o.amount,
    amount_paid: o.amount,
    amount_due: 0,
    currency: o.currency,
    receipt: o.orderId,
    offer_id: null,
    status: 'paid',
    attempts: 1,
    notes: { orderId: o.orderId },
    created_at: o.createdAt - 60,
  };
}

function refund(
  o: Resolved,
  options: RazorpayRefundFixtureOptions,
  status: RazorpayRefundStatus,
): Record<string, unknown> {
  return {
    id: options.refundId ?? razorpayId('rfnd'),
    entity: 'refund',
    amount: options.refundAmount ?? o.amount,
    currency: o.currency,
    payment_id: o.paymentId,
    notes: { reason: 'Returned goods' },
    receipt: null,
    acquirer_data: { arn: status === 'processed' ? '10000000000000' : null },
    created_at: o.createdAt - 1,
    batch_id: null,
    status,
    speed_processed: 'normal',
    speed_requested: 'optimum',
  };
}

const DISPUTE_STATUSES: Readonly<Record<RazorpayDisputeEvent, string>> = {
  created: 'open',
  won: 'won',
  lost: 'lost',
  closed: 'closed',
  under_review: 'under_review',
  action_required: 'open',
};

function dispute(
  o: Resolved,
  options: RazorpayDisputeFixtureOptions,
  phase: RazorpayDisputeEvent,
): Record<string, unknown> {
  return {
    id: options.disputeId ?? razorpayId('disp'),
    entity: 'dispute',
    payment_id: o.paymentId,
    amount: o.amount,
    currency: o.currency,
    amount_deducted: phase === 'lost' ? o.amount : 0,
    reason_code: 'goods_or_services_not_received',
    respond_by: o.createdAt + 7 * 86_400,
    status: DISPUTE_STATUSES[phase],
    phase: 'chargeback',
    created_at: o.createdAt - 1,
  };
}

function refundEvent(
  type: string,
  status: RazorpayRefundStatus,
  options: RazorpayRefundFixtureOptions,
): RazorpayWebhookEvent {
  const o = resolve(options);
  const entity = refund(o, options, status);
  const refunded = status === 'failed' ? 0 : (entity.amount as number);
  return event(o, type, {
    refund: entity,
    payment: payment(o, refunded >= o.amount ? 'refunded' : 'captured', refunded),
  });
}

/**
 * Builders of Razorpay webhook events in the shape Razorpay sends, to sign with
 * `signRazorpayDelivery()`.
 * @example
 * razorpayFixtures.orderPaid({ orderId: 'order-42', amount: 1999 })
 */
export const razorpayFixtures = {
  /** `payment.authorized` (→ `payment.authorized`). */
  paymentAuthorized(options: RazorpayFixtureOptions = {}): RazorpayWebhookEvent {
    const o = resolve(options);
    return event(o, 'payment.authorized', { payment: payment(o, 'authorized') });
  },

  /** `payment.captured` (→ `payment.succeeded`). */
  paymentCaptured(options: RazorpayFixtureOptions = {}): RazorpayWebhookEvent {
    const o = resolve(options);
    return event(o, 'payment.captured', { payment: payment(o, 'captured') });
  },

  /** `payment.failed` (→ `payment.failed`). */
  paymentFailed(options: RazorpayFixtureOptions = {}): RazorpayWebhookEvent {
    const o = resolve(options);
    return event(o, 'payment.failed', { payment: payment(o, 'failed') });
  },

  /** `order.paid`, with the payment and the order (→ `payment.succeeded`). */
  orderPaid(options: RazorpayFixtureOptions = {}): RazorpayWebhookEvent {
    const o = resolve(options);
    return event(o, 'order.paid', { payment: payment(o, 'captured'), order: order(o) });
  },

  /** `refund.created`, the refund `pending` (kept native). */
  refundCreated(options: RazorpayRefundFixtureOptions = {}): RazorpayWebhookEvent {
    return refundEvent('refund.created', 'pending', options);
  },

  /** `refund.processed` (→ `refund.succeeded`). */
  refundProcessed(options: RazorpayRefundFixtureOptions = {}): RazorpayWebhookEvent {
    return refundEvent('refund.processed', 'processed', options);
  },

  /** `refund.failed` (→ `refund.failed`). */
  refundFailed(options: RazorpayRefundFixtureOptions = {}): RazorpayWebhookEvent {
    return refundEvent('refund.failed', 'failed', options);
  },

  /**
   * `payment.dispute.<phase>`, with the payment and the dispute (`created` → `dispute.opened`;
   * `won`, `lost`, `closed` → `dispute.closed`; the others kept native).
   */
  dispute(
    phase: RazorpayDisputeEvent,
    options: RazorpayDisputeFixtureOptions = {},
  ): RazorpayWebhookEvent {
    const o = resolve(options);
    return event(o, `payment.dispute.${phase}`, {
      payment: payment(o, 'captured'),
      dispute: dispute(o, options, phase),
    });
  },
};
