import { randomBytes } from 'node:crypto';

/** A Dodo Payments webhook event as Dodo posts it. */
export interface DodoPaymentsWebhookEvent {
  business_id: string;
  type: string;
  /** When the event happened, ISO 8601. */
  timestamp: string;
  /** The object, with `payload_type` naming it (`'Payment'`, `'Refund'`, `'Dispute'`, …). */
  data: Record<string, unknown>;
}

/** Dodo Payments payment statuses. */
export type DodoPaymentStatus = 'succeeded' | 'failed' | 'cancelled' | 'processing';

/** Dodo Payments dispute statuses. */
export type DodoDisputeStatus =
  | 'dispute_opened'
  | 'dispute_expired'
  | 'dispute_accepted'
  | 'dispute_cancelled'
  | 'dispute_challenged'
  | 'dispute_won'
  | 'dispute_lost';

/** What a fixture is about; every field has a realistic default. */
export interface DodoPaymentsFixtureOptions {
  /**
   * Your order id, sent to Dodo in the payment's `metadata`.
   * @default 'order-1001'
   */
  orderId?: string;
  /**
   * Amount in minor units (`total_amount` of a payment, `amount` of a refund or dispute).
   * @default 1999
   */
  amount?: number;
  /**
   * ISO 4217 code, upper case as Dodo writes it.
   * @default 'USD'
   */
  currency?: string;
  /** Dodo's payment id. @default `pay_` and 21 random characters */
  paymentId?: string;
  /** When the event happened. @default now */
  createdAt?: Date;
}

/** Options of the refund fixtures. */
export interface DodoRefundFixtureOptions extends DodoPaymentsFixtureOptions {
  /** @default `ref_` and 21 random characters */
  refundId?: string;
  /** Whether less than the whole payment is refunded. @default false */
  isPartial?: boolean;
}

/** Options of the dispute fixtures. */
export interface DodoDisputeFixtureOptions extends DodoPaymentsFixtureOptions {
  /** @default `dsp_` and 21 random characters */
  disputeId?: string;
}

// NOTE: one business, brand and customer, so every fixture of a run is for the same shop.
const BUSINESS_ID = 'bus_5aDrX6tq2Kc4bVw8Ynh0J';
const BRAND_ID = 'bus_5aDrX6tq2Kc4bVw8Ynh0J';
const CUSTOMER = {
  customer_id: 'cus_7Fp2LqR9sT4vW1xZ3aB6c',
  email: 'jane@example.com',
  name: 'Jane Doe',
  metadata: {},
  phone_number: null,
};
const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

function dodoId(prefix: string): string {
  return `${prefix}_${[...randomBytes(21)].map((b) => ALPHANUMERIC[b % 62]).join('')}`;
}

interface Resolved {
  orderId: string;
  amount: number;
  currency: string;
  paymentId: string;
  at: string;
}

function resolve(options: DodoPaymentsFixtureOptions): Resolved {
  return {
    orderId: options.orderId ?? 'order-1001',
    amount: options.amount ?? 1999,
    currency: (options.currency ?? 'USD').toUpperCase(),
    paymentId: options.paymentId ?? dodoId('pay'),
    at: (options.createdAt ?? new Date()).toISOString(),
  };
}

function event(type: string, o: Resolved, data: Record<string, unknown>): DodoPaymentsWebhookEvent {
  return { business_id: BUSINESS_ID, type, timestamp: o.at, data };
}

function payment(o: Resolved, status: DodoPaymentStatus): Record<string, unknown> {
  const failed = status === 'failed';
  return {
    payload_type: 'Payment',
    billing: {
      country: 'US',
      city: 'San Francisco',
      state: 'CA',
      street: '1 Market St',
      zipcode: '94105',
    },
    brand_id: BRAND_ID,
    business_id: BUSINESS_ID,
    created_at: o.at,
    currency: o.currency,
    customer: CUSTOMER,
    digital_products_delivered: false,
    disputes: [],
    is_multi_subscription: false,
    is_update_payment_method: false,
    metadata: { orderId: o.orderId },
    payment_id: o.paymentId,
    payment_provider: 'dodo',
    refunds: [],
    retry_attempt: 0,
    settlement_amount: status === 'succeeded' ? o.amount : 0,
    settlement_currency: o.currency,
    subscription_ids: [],
    total_amount: o.amount,
    card_last_four: '4242',
    card_network: 'VISA',
    card_type: 'CREDIT',
    card_issuing_country: 'US',
    error_code: failed ? 'CARD_DECLINED' : null,
    error_message: failed ? 'The card was declined.' : null,
    payment_method: 'card',
    payment_method_type: 'visa',
    product_cart: [{ product_id: 'pdt_2Xb8RkM4nQ7tV1wY5zC3e', quantity: 1 }],
    status,
    subscription_id: null,
    tax: 0,
    updated_at: o.at,
  };
}

/**
 * Builders of Dodo Payments webhook events in the shape Dodo sends (the SDK's
 * `UnwrapWebhookEvent`), to sign with `signDodoPaymentsDelivery()`. Amounts are minor units.
 * @example
 * dodoPaymentsFixtures.paymentSucceeded({ orderId: 'order-42', amount: 1999, currency: 'USD' })
 */
export const dodoPaymentsFixtures = {
  /** `payment.succeeded` (→ `payment.succeeded`). */
  paymentSucceeded(options: DodoPaymentsFixtureOptions = {}): DodoPaymentsWebhookEvent {
    const o = resolve(options);
    return event('payment.succeeded', o, payment(o, 'succeeded'));
  },

  /** `payment.failed` (→ `payment.failed`). */
  paymentFailed(options: DodoPaymentsFixtureOptions = {}): DodoPaymentsWebhookEvent {
    const o = resolve(options);
    return event('payment.failed', o, payment(o, 'failed'));
  },

  /** `payment.processing` (unmapped). */
  paymentProcessing(options: DodoPaymentsFixtureOptions = {}): DodoPaymentsWebhookEvent {
    const o = resolve(options);
    return event('payment.processing', o, payment(o, 'processing'));
  },

  /** `payment.cancelled` (→ `payment.canceled`). */
  paymentCancelled(options: DodoPaymentsFixtureOptions = {}): DodoPaymentsWebhookEvent {
    const o = resolve(options);
    return event('payment.cancelled', o, payment(o, 'cancelled'));
  },

  /** `refund.succeeded` (→ `refund.succeeded`). */
  refundSucceeded(options: DodoRefundFixtureOptions = {}): DodoPaymentsWebhookEvent {
    return refundEvent('refund.succeeded', options);
  },

  /** `refund.failed` (→ `refund.failed`). */
  refundFailed(options: DodoRefundFixtureOptions = {}): DodoPaymentsWebhookEvent {
    return refundEvent('refund.failed', options);
  },

  /** `dispute.opened` (→ `dispute.opened`). */
  disputeOpened(options: DodoDisputeFixtureOptions = {}): DodoPaymentsWebhookEvent {
    return disputeEvent('dispute.opened', 'dispute_opened', options);
  },

  /**
   * `dispute.won`, `.lost`, `.accepted`, `.cancelled` or `.expired` (→ `dispute.closed`), or
   * `.challenged` (unmapped).
   */
  disputeUpdated(
    outcome: 'won' | 'lost' | 'accepted' | 'cancelled' | 'expired' | 'challenged',
    options: DodoDisputeFixtureOptions = {},
  ): DodoPaymentsWebhookEvent {
    return disputeEvent(`dispute.${outcome}`, `dispute_${outcome}`, options);
  },
};

function refundEvent(type: string, options: DodoRefundFixtureOptions): DodoPaymentsWebhookEvent {
  const o = resolve(options);
  return event(type, o, {
    payload_type: 'Refund',
    brand_id: BRAND_ID,
    business_id: BUSINESS_ID,
    created_at: o.at,
    customer: CUSTOMER,
    is_partial: options.isPartial ?? false,
    metadata: {},
    payment_id: o.paymentId,
    refund_id: options.refundId ?? dodoId('ref'),
    status: type === 'refund.failed' ? 'failed' : 'succeeded',
    amount: o.amount,
    currency: o.currency,
    reason: 'Customer request',
  });
}

function disputeEvent(
  type: string,
  status: DodoDisputeStatus,
  options: DodoDisputeFixtureOptions,
): DodoPaymentsWebhookEvent {
  const o = resolve(options);
  return event(type, o, {
    payload_type: 'Dispute',
    amount: String(o.amount),
    brand_id: BRAND_ID,
    business_id: BUSINESS_ID,
    created_at: o.at,
    currency: o.currency,
    customer: CUSTOMER,
    dispute_id: options.disputeId ?? dodoId('dsp'),
    dispute_stage: 'dispute',
    dispute_status: status,
    payment_id: o.paymentId,
    payment_provider: 'dodo',
    is_resolved_by_rdr: false,
    reason: 'fraudulent',
    remarks: null,
  });
}
