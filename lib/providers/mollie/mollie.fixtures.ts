import { randomInt } from 'node:crypto';
import { formatMinorUnits } from '../../core/minor-units';

/** A Mollie amount: a decimal string in the currency's units. */
export interface MollieAmount {
  currency: string;
  value: string;
}

/** Mollie payment statuses. */
export type MolliePaymentStatus =
  'open' | 'pending' | 'authorized' | 'paid' | 'canceled' | 'expired' | 'failed';

/** Mollie refund statuses. */
export type MollieRefundStatus =
  'queued' | 'pending' | 'processing' | 'refunded' | 'failed' | 'canceled';

/** A next-gen webhook event as Mollie posts it (full payload). */
export interface MollieWebhookEvent {
  resource: 'event';
  /** `event_…`, the same on every retry. */
  id: string;
  type: string;
  entityId: string;
  createdAt: string;
  _embedded?: { entity: Record<string, unknown> };
  _links: Record<string, { href: string; type: string }>;
}

/** What a fixture is about; every field has a realistic default. */
export interface MollieFixtureOptions {
  /**
   * Your order id, set as the payment's `metadata.order_id`.
   * @default 'order-1001'
   */
  orderId?: string;
  /**
   * Amount in minor units, written as Mollie's decimal string.
   * @default 1099
   */
  amount?: number;
  /** @default 'EUR' */
  currency?: string;
  /** @default a random `tr_…` */
  paymentId?: string;
  /** @default now */
  createdAt?: Date;
}

/** Options of `payment()`. */
export interface MolliePaymentFixtureOptions extends MollieFixtureOptions {
  /** @default 'paid' */
  status?: MolliePaymentStatus;
  /** Refunds to embed (as `GET /v2/payments/{id}?embed=refunds` returns them). */
  refunds?: readonly { id?: string; status: MollieRefundStatus; amount?: number }[];
  /** Chargebacks to embed. */
  chargebacks?: readonly { id?: string; amount?: number; reversed?: boolean }[];
}

/** Options of the event fixtures. */
export interface MollieEventFixtureOptions extends MolliePaymentFixtureOptions {
  /** @default a random `event_…` */
  eventId?: string;
}

const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const PROFILE_ID = 'pfl_QkEhN94Ba';
const API = 'https://api.mollie.com/v2';

function randomId(prefix: string, length: number): string {
  let id = `${prefix}_`;
  for (let i = 0; i < length; i++) id += ALPHANUMERIC[randomInt(ALPHANUMERIC.length)];
  return id;
}

function money(amount: number, currency: string): MollieAmount {
  return { currency, value: formatMinorUnits(amount, currency) };
}

function link(href: string, type = 'application/hal+json'): { href: string; type: string } {
  return { href, type };
}

const STATUS_TIMES: Readonly<Record<string, string>> = {
  paid: 'paidAt',
  authorized: 'authorizedAt',
  failed: 'failedAt',
  canceled: 'canceledAt',
  expired: 'expiredAt',
};

// NOTE: the builders `mollieFixtures` holds are arrow functions, so its declaration shows their
// signatures rather than `typeof` of functions no entry exports.
const payment = (options: MolliePaymentFixtureOptions = {}): Record<string, unknown> => {
  const id = options.paymentId ?? randomId('tr', 10);
  const currency = (options.currency ?? 'EUR').toUpperCase();
  const amount = options.amount ?? 1099;
  const status = options.status ?? 'paid';
  const at = (options.createdAt ?? new Date()).toISOString();
  const refunds = (options.refunds ?? []).map((refund) => ({
    resource: 'refund',
    id: refund.id ?? randomId('re', 10),
    amount: money(refund.amount ?? amount, currency),
    status: refund.status,
    createdAt: at,
    description: 'Returned goods',
    paymentId: id,
    _links: { self: link(`${API}/payments/${id}/refunds/${refund.id ?? 're'}`) },
  }));
  const chargebacks = (options.chargebacks ?? []).map((chargeback) => ({
    resource: 'chargeback',
    id: chargeback.id ?? randomId('chb', 6),
    amount: money(chargeback.amount ?? amount, currency),
    createdAt: at,
    reversedAt: chargeback.reversed ? at : null,
    paymentId: id,
  }));
  const paid = status === 'paid';
  return {
    resource: 'payment',
    id,
    mode: 'test',
    createdAt: at,
    amount: money(amount, currency),
    description: `Order ${options.orderId ?? 'order-1001'}`,
    method: 'ideal',
    metadata: { order_id: options.orderId ?? 'order-1001' },
    status,
    ...(Object.hasOwn(STATUS_TIMES, status) ? { [STATUS_TIMES[status]]: at } : {}),
    ...(status === 'open'
      ? { expiresAt: new Date(Date.parse(at) + 15 * 60_000).toISOString() }
      : {}),
    isCancelable: status === 'open' || status === 'authorized',
    ...(paid
      ? {
          amountRefunded: money(
            refunds.filter((r) => r.status !== 'failed' && r.status !== 'canceled').length > 0
              ? amount
              : 0,
            currency,
          ),
          amountRemaining: money(amount, currency),
          settlementAmount: money(amount, currency),
          ...(chargebacks.length > 0 ? { amountChargedBack: money(amount, currency) } : {}),
        }
      : {}),
    locale: 'nl_NL',
    countryCode: 'NL',
    profileId: PROFILE_ID,
    sequenceType: 'oneoff',
    redirectUrl: 'https://shop.example.com/order/return',
    webhookUrl: 'https://shop.example.com/webhooks/mollie',
    ...(refunds.length > 0 || chargebacks.length > 0
      ? {
          _embedded: {
            ...(refunds.length > 0 ? { refunds } : {}),
            ...(chargebacks.length > 0 ? { chargebacks } : {}),
          },
        }
      : {}),
    _links: {
      self: link(`${API}/payments/${id}`),
      dashboard: link(`https://www.mollie.com/dashboard/org_12345678/payments/${id}`, 'text/html'),
      documentation: link('https://docs.mollie.com/reference/get-payment', 'text/html'),
    },
  };
};

function event(
  type: string,
  entity: Record<string, unknown>,
  options: MollieEventFixtureOptions,
): MollieWebhookEvent {
  const id = options.eventId ?? randomId('event', 21);
  const entityId = entity.id as string;
  return {
    resource: 'event',
    id,
    type,
    entityId,
    createdAt: (options.createdAt ?? new Date()).toISOString(),
    _embedded: { entity },
    _links: {
      self: link(`${API}/events/${id}`),
      documentation: link('https://docs.mollie.com/reference/webhooks-new', 'text/html'),
      entity: link(String((entity._links as { self: { href: string } }).self.href)),
    },
  };
}

/**
 * Builders of Mollie webhooks: next-gen events to sign with `signMollieDelivery()`, payments as
 * the API returns them (what a classic webhook is confirmed with), and classic bodies.
 * @example
 * mollieFixtures.paymentEvent('payment.paid', { orderId: 'order-42', amount: 1099 })
 */
export const mollieFixtures = {
  /** A payment as `GET /v2/payments/{id}?embed=refunds,chargebacks,captures` returns it. */
  payment,

  /**
   * A next-gen Payments API event (`payment.paid` → `payment.succeeded`, `payment.authorized`,
   * `payment.failed`, `payment.canceled`, `payment.expired` → `payment.canceled`,
   * `payment.pending` kept native) with the payment embedded; its status follows the type.
   */
  paymentEvent(
    type: `payment.${MolliePaymentStatus}` = 'payment.paid',
    options: MollieEventFixtureOptions = {},
  ): MollieWebhookEvent {
    const status = (options.status ?? type.slice('payment.'.length)) as MolliePaymentStatus;
    return event(type, payment({ ...options, status }), options);
  },

  /** `payment-link.paid` (kept native) with the payment link embedded. */
  paymentLinkPaid(options: MollieEventFixtureOptions = {}): MollieWebhookEvent {
    const id = randomId('pl', 21);
    const at = (options.createdAt ?? new Date()).toISOString();
    const currency = (options.currency ?? 'EUR').toUpperCase();
    return event(
      'payment-link.paid',
      {
        resource: 'payment-link',
        id,
        mode: 'test',
        description: 'Bicycle tires',
        amount: money(options.amount ?? 2495, currency),
        archived: false,
        redirectUrl: 'https://shop.example.com/thanks',
        webhookUrl: 'https://shop.example.com/webhooks/mollie',
        profileId: PROFILE_ID,
        createdAt: at,
        paidAt: at,
        reusable: false,
        sequenceType: 'oneoff',
        _links: { self: link(`${API}/payment-links/${id}`) },
      },
      options,
    );
  },

  /** The form body of a classic webhook: `id=tr_…`. */
  classicBody(paymentId: string): string {
    return new URLSearchParams({ id: paymentId }).toString();
  },
};
