import { randomInt, randomUUID } from 'node:crypto';
import { formatMinorUnits } from '../../core/minor-units';

/** A Lemon Squeezy webhook event as Lemon Squeezy posts it: a JSON:API resource with `meta`. */
export interface LemonSqueezyWebhookEvent {
  meta: {
    test_mode: boolean;
    event_name: string;
    /** What the checkout passed as `checkout_data[custom]`; absent when it passed nothing. */
    custom_data?: Record<string, unknown>;
  };
  data: {
    type: string;
    /** A numeric id, as a string. */
    id: string;
    attributes: Record<string, unknown>;
    relationships: Record<string, unknown>;
    links: { self: string };
  };
}

/** Order statuses. */
export type LemonSqueezyOrderStatus = 'pending' | 'failed' | 'paid' | 'refunded' | 'fraudulent';

/** Subscription invoice statuses. */
export type LemonSqueezyInvoiceStatus = 'pending' | 'paid' | 'void' | 'refunded';

/** Subscription statuses. */
export type LemonSqueezySubscriptionStatus =
  'on_trial' | 'active' | 'paused' | 'past_due' | 'unpaid' | 'cancelled' | 'expired';

/** What every fixture is about; every field has a realistic default. */
export interface LemonSqueezyFixtureOptions {
  /**
   * Your order id, passed at checkout as `checkout_data[custom][order_id]`; `null` leaves
   * `custom_data` out.
   * @default 'order-1001'
   */
  orderId?: string | null;
  /**
   * The total in minor units ("cents").
   * @default 1999
   */
  amount?: number;
  /**
   * ISO 4217 code.
   * @default 'USD'
   */
  currency?: string;
  /** The object's id (`data.id`). @default a random number */
  id?: string;
  /** When the object was created. @default now */
  createdAt?: Date;
  /** When the object last changed. @default `createdAt` */
  updatedAt?: Date;
  /** @default true */
  testMode?: boolean;
}

/** Options of the order fixtures. */
export interface LemonSqueezyOrderFixtureOptions extends LemonSqueezyFixtureOptions {
  /** @default 'paid' for `orderCreated`, 'refunded' for `orderRefunded` */
  status?: LemonSqueezyOrderStatus;
  /** Refunded so far, in minor units. @default 0 for `orderCreated`, the total for `orderRefunded` */
  refundedAmount?: number;
}

/** Options of the subscription invoice fixtures. */
export interface LemonSqueezyInvoiceFixtureOptions extends LemonSqueezyFixtureOptions {
  /** @default 'paid' (`pending` for a failed payment, `refunded` for a refunded one) */
  status?: LemonSqueezyInvoiceStatus;
  /** @default 0, or the total for `subscriptionPaymentRefunded` */
  refundedAmount?: number;
  /** @default a random number */
  subscriptionId?: string;
}

/** Options of the subscription fixtures. */
export interface LemonSqueezySubscriptionFixtureOptions extends LemonSqueezyFixtureOptions {
  /** @default 'active' */
  status?: LemonSqueezySubscriptionStatus;
}

const STORE_ID = 48211;
const CUSTOMER_ID = 3198245;
const API = 'https://api.lemonsqueezy.com/v1';
const SYMBOLS: Readonly<Record<string, string>> = { USD: '$', EUR: '€', GBP: '£' };

interface Resolved {
  orderId: string | null;
  amount: number;
  currency: string;
  id: string;
  createdAt: string;
  updatedAt: string;
  testMode: boolean;
}

function resolve(options: LemonSqueezyFixtureOptions): Resolved {
  const createdAt = options.createdAt ?? new Date();
  return {
    orderId: options.orderId === undefined ? 'order-1001' : options.orderId,
    amount: options.amount ?? 1999,
    currency: (options.currency ?? 'USD').toUpperCase(),
    id: options.id ?? String(randomInt(1_000_000, 9_999_999)),
    createdAt: createdAt.toISOString().replace('Z', '000Z'),
    updatedAt: (options.updatedAt ?? createdAt).toISOString().replace('Z', '000Z'),
    testMode: options.testMode ?? true,
  };
}

function formatted(amount: number, currency: string): string {
  const symbol = Object.hasOwn(SYMBOLS, currency) ? SYMBOLS[currency] : `${currency} `;
  return `${symbol}${formatMinorUnits(amount, currency)}`;
}

function capitalized(status: string): string {
  return `${status.charAt(0).toUpperCase()}${status.slice(1).replace(/_/g, ' ')}`;
}

function relationships(
  type: string,
  id: string,
  names: readonly string[],
): Record<string, unknown> {
  return Object.fromEntries(
    names.map((name) => [
      name,
      {
        links: {
          related: `${API}/${type}/${id}/${name}`,
          self: `${API}/${type}/${id}/relationships/${name}`,
        },
      },
    ]),
  );
}

function event(
  o: Resolved,
  eventName: string,
  type: string,
  attributes: Record<string, unknown>,
  related: readonly string[],
): LemonSqueezyWebhookEvent {
  return {
    meta: {
      test_mode: o.testMode,
      event_name: eventName,
      ...(o.orderId === null ? {} : { custom_data: { order_id: o.orderId } }),
    },
    data: {
      type,
      id: o.id,
      attributes,
      relationships: relationships(type, o.id, related),
      links: { self: `${API}/${type}/${o.id}` },
    },
  };
}

/** The amounts of an order or invoice of `total` with 20% VAT included. */
function amounts(total: number, refunded: number, currency: string): Record<string, unknown> {
  const tax = Math.round(total / 6);
  const subtotal = total - tax;
  return {
    subtotal,
    discount_total: 0,
    tax,
    total,
    refunded_amount: refunded,
    subtotal_usd: subtotal,
    discount_total_usd: 0,
    tax_usd: tax,
    total_usd: total,
    refunded_amount_usd: refunded,
    subtotal_formatted: formatted(subtotal, currency),
    discount_total_formatted: formatted(0, currency),
    tax_formatted: formatted(tax, currency),
    total_formatted: formatted(total, currency),
    refunded_amount_formatted: formatted(refunded, currency),
  };
}

function order(
  o: Resolved,
  status: LemonSqueezyOrderStatus,
  refunded: number,
): Record<string, unknown> {
  const orderNumber = Number(o.id) % 100_000;
  return {
    store_id: STORE_ID,
    customer_id: CUSTOMER_ID,
    identifier: randomUUID(),
    order_number: orderNumber,
    user_name: 'Darlene Daugherty',
    user_email: 'darlene@example.com',
    currency: o.currency,
    currency_rate: '1.00000000',
    tax_name: 'VAT',
    tax_rate: 20,
    tax_inclusive: true,
    status,
    status_formatted: capitalized(status),
    refunded: refunded > 0,
    refunded_at: refunded > 0 ? o.updatedAt : null,
    setup_fee: 0,
    setup_fee_usd: 0,
    setup_fee_formatted: formatted(0, o.currency),
    ...amounts(o.amount, refunded, o.currency),
    first_order_item: {
      id: Number(o.id) + 1,
      order_id: Number(o.id),
      product_id: 215673,
      variant_id: 271394,
      price_id: 339871,
      product_name: 'Pro licence',
      variant_name: 'Default',
      quantity: 1,
      price: o.amount,
      created_at: o.createdAt,
      updated_at: o.createdAt,
      test_mode: o.testMode,
    },
    urls: {
      receipt: `https://app.lemonsqueezy.com/my-orders/${randomUUID()}?signature=${randomUUID().replace(/-/g, '')}`,
    },
    created_at: o.createdAt,
    updated_at: o.updatedAt,
    test_mode: o.testMode,
  };
}

function invoice(
  o: Resolved,
  subscriptionId: string,
  status: LemonSqueezyInvoiceStatus,
  refunded: number,
): Record<string, unknown> {
  return {
    store_id: STORE_ID,
    subscription_id: Number(subscriptionId),
    customer_id: CUSTOMER_ID,
    user_name: 'Darlene Daugherty',
    user_email: 'darlene@example.com',
    billing_reason: 'renewal',
    card_brand: 'visa',
    card_last_four: '4242',
    currency: o.currency,
    currency_rate: '1.00000000',
    status,
    status_formatted: capitalized(status),
    refunded: refunded > 0,
    refunded_at: refunded > 0 ? o.updatedAt : null,
    tax_inclusive: true,
    ...amounts(o.amount, refunded, o.currency),
    urls: {
      invoice_url:
        status === 'pending'
          ? null
          : `https://app.lemonsqueezy.com/my-orders/${randomUUID()}/subscription-invoice/${o.id}`,
    },
    created_at: o.createdAt,
    updated_at: o.updatedAt,
    test_mode: o.testMode,
  };
}

function orderEvent(
  eventName: string,
  options: LemonSqueezyOrderFixtureOptions,
  status: LemonSqueezyOrderStatus,
  refunded: (total: number) => number,
): LemonSqueezyWebhookEvent {
  const o = resolve(options);
  const attributes = order(
    o,
    options.status ?? status,
    options.refundedAmount ?? refunded(o.amount),
  );
  return event(o, eventName, 'orders', attributes, [
    'store',
    'customer',
    'order-items',
    'subscriptions',
    'license-keys',
    'discount-redemptions',
  ]);
}

function invoiceEvent(
  eventName: string,
  options: LemonSqueezyInvoiceFixtureOptions,
  status: LemonSqueezyInvoiceStatus,
  refunded: (total: number) => number,
): LemonSqueezyWebhookEvent {
  const o = resolve(options);
  const subscriptionId = options.subscriptionId ?? String(randomInt(100_000, 999_999));
  const attributes = invoice(
    o,
    subscriptionId,
    options.status ?? status,
    options.refundedAmount ?? refunded(o.amount),
  );
  return event(o, eventName, 'subscription-invoices', attributes, [
    'store',
    'subscription',
    'customer',
  ]);
}

/**
 * Builders of Lemon Squeezy webhook events in the shape Lemon Squeezy sends, to sign with
 * `signLemonSqueezyDelivery()`.
 * @example
 * lemonSqueezyFixtures.orderCreated({ orderId: 'order-42', amount: 1999, currency: 'EUR' })
 */
export const lemonSqueezyFixtures = {
  /** `order_created` with status `paid` (→ `payment.succeeded`). */
  orderCreated(options: LemonSqueezyOrderFixtureOptions = {}): LemonSqueezyWebhookEvent {
    return orderEvent('order_created', options, 'paid', () => 0);
  },

  /**
   * `order_refunded` (→ `refund.succeeded`); for a partial refund set `refundedAmount` to what
   * has been refunded so far and `status: 'paid'`.
   */
  orderRefunded(options: LemonSqueezyOrderFixtureOptions = {}): LemonSqueezyWebhookEvent {
    return orderEvent('order_refunded', options, 'refunded', (total) => total);
  },

  /** `subscription_payment_success` (→ `payment.succeeded`). */
  subscriptionPaymentSuccess(
    options: LemonSqueezyInvoiceFixtureOptions = {},
  ): LemonSqueezyWebhookEvent {
    return invoiceEvent('subscription_payment_success', options, 'paid', () => 0);
  },

  /** `subscription_payment_failed` (→ `payment.failed`). */
  subscriptionPaymentFailed(
    options: LemonSqueezyInvoiceFixtureOptions = {},
  ): LemonSqueezyWebhookEvent {
    return invoiceEvent('subscription_payment_failed', options, 'pending', () => 0);
  },

  /** `subscription_payment_refunded` (→ `refund.succeeded`). */
  subscriptionPaymentRefunded(
    options: LemonSqueezyInvoiceFixtureOptions = {},
  ): LemonSqueezyWebhookEvent {
    return invoiceEvent('subscription_payment_refunded', options, 'refunded', (total) => total);
  },

  /** `subscription_updated` (stays `lemon-squeezy:subscription_updated`). */
  subscriptionUpdated(
    options: LemonSqueezySubscriptionFixtureOptions = {},
  ): LemonSqueezyWebhookEvent {
    const o = resolve(options);
    const status = options.status ?? 'active';
    const renewsAt = new Date(Date.parse(o.createdAt) + 30 * 24 * 3600 * 1000);
    return event(
      o,
      'subscription_updated',
      'subscriptions',
      {
        store_id: STORE_ID,
        customer_id: CUSTOMER_ID,
        order_id: randomInt(1_000_000, 9_999_999),
        order_item_id: randomInt(1_000_000, 9_999_999),
        product_id: 215673,
        variant_id: 271394,
        product_name: 'Pro plan',
        variant_name: 'Monthly',
        user_name: 'Darlene Daugherty',
        user_email: 'darlene@example.com',
        status,
        status_formatted: capitalized(status),
        card_brand: 'visa',
        card_last_four: '4242',
        pause: null,
        cancelled: status === 'cancelled',
        trial_ends_at: null,
        billing_anchor: new Date(o.createdAt).getUTCDate(),
        first_subscription_item: {
          id: randomInt(100_000, 999_999),
          subscription_id: Number(o.id),
          price_id: 339872,
          quantity: 1,
          is_usage_based: false,
          created_at: o.createdAt,
          updated_at: o.updatedAt,
        },
        urls: {
          update_payment_method: `https://example.lemonsqueezy.com/subscription/${o.id}/payment-details`,
          customer_portal: 'https://example.lemonsqueezy.com/billing',
        },
        renews_at: renewsAt.toISOString().replace('Z', '000Z'),
        ends_at: null,
        created_at: o.createdAt,
        updated_at: o.updatedAt,
        test_mode: o.testMode,
      },
      ['store', 'customer', 'order', 'order-item', 'product', 'variant', 'subscription-items'],
    );
  },
};
