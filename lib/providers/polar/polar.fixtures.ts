import { randomUUID } from 'node:crypto';

/** A Polar webhook event as Polar posts it (the "Raw" format). */
export interface PolarWebhookEvent {
  type: string;
  /** When Polar made the event, ISO 8601. */
  timestamp: string;
  data: Record<string, unknown>;
}

/** Polar order statuses. */
export type PolarOrderStatus = 'pending' | 'paid' | 'refunded' | 'partially_refunded' | 'void';

/** Polar refund statuses. */
export type PolarRefundStatus = 'pending' | 'succeeded' | 'failed' | 'canceled';

/** What an order fixture is about; every field has a realistic default. */
export interface PolarOrderFixtureOptions {
  /**
   * Your order id, sent to Polar in the checkout's `metadata` (copied onto the order).
   * @default 'order-1001'
   */
  orderId?: string;
  /**
   * `total_amount` in minor units (cents), tax included.
   * @default 1999
   */
  amount?: number;
  /**
   * ISO 4217 code, lower case as Polar writes it.
   * @default 'usd'
   */
  currency?: string;
  /** Polar's order id. @default a random UUID */
  polarOrderId?: string;
  /** When the order was created and the event made. @default now */
  createdAt?: Date;
}

/** Options of the refund fixtures. */
export interface PolarRefundFixtureOptions extends PolarOrderFixtureOptions {
  /** @default 'succeeded' */
  status?: PolarRefundStatus;
  /** Polar's refund id. @default a random UUID */
  refundId?: string;
}

// NOTE: one organization, customer and product, so every fixture of a run is for the same shop.
const ORGANIZATION_ID = '1dbfc517-0bbf-4301-9ba8-555ca42b9737';
const CUSTOMER_ID = '992fae2a-2a17-4b7a-8d9e-e287cf90131b';
const PRODUCT_ID = 'f6ba4c48-6c69-4f6a-bb6f-0a0d1a4e1c8e';
const PRICE_ID = '3b3a5d3e-52b6-4b8a-a2c5-5d3c5ad5b0ea';

interface Resolved {
  orderId: string;
  amount: number;
  currency: string;
  polarOrderId: string;
  createdAt: Date;
}

function resolve(options: PolarOrderFixtureOptions): Resolved {
  return {
    orderId: options.orderId ?? 'order-1001',
    amount: options.amount ?? 1999,
    currency: (options.currency ?? 'usd').toLowerCase(),
    polarOrderId: options.polarOrderId ?? randomUUID(),
    createdAt: options.createdAt ?? new Date(),
  };
}

function customer(at: string): Record<string, unknown> {
  return {
    id: CUSTOMER_ID,
    created_at: at,
    modified_at: null,
    metadata: {},
    external_id: null,
    email: 'jane@example.com',
    email_verified: true,
    type: 'individual',
    name: 'Jane Doe',
    billing_name: 'Jane Doe',
    billing_address: {
      line1: null,
      line2: null,
      postal_code: '10115',
      city: 'Berlin',
      state: null,
      country: 'DE',
    },
    tax_id: null,
    locale: 'en',
    organization_id: ORGANIZATION_ID,
    default_payment_method_id: null,
    deleted_at: null,
    avatar_url: null,
  };
}

function product(at: string): Record<string, unknown> {
  return {
    metadata: {},
    id: PRODUCT_ID,
    created_at: at,
    modified_at: null,
    trial_interval: null,
    trial_interval_count: null,
    name: 'Pro license',
    description: 'A lifetime license',
    visibility: 'public',
    recurring_interval: null,
    recurring_interval_count: null,
    meter_interval: null,
    meter_interval_count: null,
    is_recurring: false,
    is_archived: false,
    organization_id: ORGANIZATION_ID,
  };
}

/** An order as Polar serializes it; the amount is split into net and a 19 % tax. */
function order(o: Resolved, status: PolarOrderStatus, refunded: number): Record<string, unknown> {
  const at = o.createdAt.toISOString();
  const net = Math.round(o.amount / 1.19);
  const tax = o.amount - net;
  const refundedTax = Math.round((refunded * tax) / o.amount) || 0;
  return {
    id: o.polarOrderId,
    created_at: at,
    modified_at: at,
    status,
    paid: status !== 'pending' && status !== 'void',
    subtotal_amount: net,
    discount_amount: 0,
    net_amount: net,
    tax_amount: tax,
    total_amount: o.amount,
    applied_balance_amount: 0,
    due_amount: 0,
    refunded_amount: refunded - refundedTax,
    refunded_tax_amount: refundedTax,
    currency: o.currency,
    billing_reason: 'purchase',
    billing_name: 'Jane Doe',
    billing_address: {
      line1: null,
      line2: null,
      postal_code: '10115',
      city: 'Berlin',
      state: null,
      country: 'DE',
    },
    invoice_number: `POLAR-${o.polarOrderId.slice(0, 8).toUpperCase()}-0001`,
    is_invoice_generated: false,
    receipt_number: null,
    customer_id: CUSTOMER_ID,
    product_id: PRODUCT_ID,
    discount_id: null,
    subscription_id: null,
    checkout_id: randomUUID(),
    metadata: { orderId: o.orderId },
    custom_field_data: {},
    platform_fee_amount: Math.round(o.amount * 0.04) + 40,
    platform_fee_currency: o.currency,
    customer: customer(at),
    product: product(at),
    discount: null,
    subscription: null,
    items: [
      {
        created_at: at,
        modified_at: null,
        id: randomUUID(),
        label: 'Pro license',
        amount: net,
        tax_amount: tax,
        proration: false,
        product_price_id: PRICE_ID,
      },
    ],
    description: 'Pro license',
    refundable_amount: net - (refunded - refundedTax),
    refundable_tax_amount: tax - refundedTax,
  };
}

function refund(o: Resolved, refundId: string, status: PolarRefundStatus): Record<string, unknown> {
  const at = o.createdAt.toISOString();
  const net = Math.round(o.amount / 1.19);
  return {
    created_at: at,
    modified_at: at,
    id: refundId,
    metadata: {},
    status,
    reason: 'customer_request',
    amount: net,
    tax_amount: o.amount - net,
    currency: o.currency,
    organization_id: ORGANIZATION_ID,
    order_id: o.polarOrderId,
    subscription_id: null,
    customer_id: CUSTOMER_ID,
    revoke_benefits: false,
    dispute: null,
  };
}

function orderEvent(
  type: string,
  options: PolarOrderFixtureOptions,
  status: PolarOrderStatus,
  refunded = 0,
): PolarWebhookEvent {
  const o = resolve(options);
  return { type, timestamp: o.createdAt.toISOString(), data: order(o, status, refunded) };
}

function refundEvent(type: string, options: PolarRefundFixtureOptions): PolarWebhookEvent {
  const o = resolve(options);
  const data = refund(o, options.refundId ?? randomUUID(), options.status ?? 'succeeded');
  return { type, timestamp: o.createdAt.toISOString(), data };
}

/**
 * Builders of Polar webhook events in the shape Polar sends (the SDK's `validateEvent` parses
 * them), to sign with `signPolarDelivery()`. Amounts are minor units, tax included; a refund's
 * `amount` is the part before tax, as Polar writes it.
 * @example
 * polarFixtures.orderPaid({ orderId: 'order-42', amount: 1999, currency: 'usd' })
 */
export const polarFixtures = {
  /** `order.paid` (→ `payment.succeeded`). */
  orderPaid(options: PolarOrderFixtureOptions = {}): PolarWebhookEvent {
    return orderEvent('order.paid', options, 'paid');
  },

  /** `order.created`, still pending (unmapped: `order.paid` follows). */
  orderCreated(options: PolarOrderFixtureOptions = {}): PolarWebhookEvent {
    return orderEvent('order.created', options, 'pending');
  },

  /** `order.refunded`, the order refunded in full (unmapped: the refund events carry each refund). */
  orderRefunded(options: PolarOrderFixtureOptions = {}): PolarWebhookEvent {
    return orderEvent('order.refunded', options, 'refunded', resolve(options).amount);
  },

  /** `refund.created` (succeeded → `refund.succeeded`, failed or canceled → `refund.failed`). */
  refundCreated(options: PolarRefundFixtureOptions = {}): PolarWebhookEvent {
    return refundEvent('refund.created', options);
  },

  /** `refund.updated` (mapped by status, as `refundCreated`). */
  refundUpdated(options: PolarRefundFixtureOptions = {}): PolarWebhookEvent {
    return refundEvent('refund.updated', options);
  },
};
