import { randomInt } from 'node:crypto';

/** A Checkout.com webhook event as Checkout.com posts it. */
export interface CheckoutComWebhookEvent {
  /** `evt_…`, the same on every retry. */
  id: string;
  type: string;
  version: string;
  /** When the event happened. */
  created_on: string;
  data: Record<string, unknown>;
  _links: Record<string, { href: string }>;
}

/** What every fixture is about; every field has a realistic default. */
export interface CheckoutComFixtureOptions {
  /**
   * Your order id, sent to Checkout.com as the payment's `reference`.
   * @default 'order-1001'
   */
  reference?: string;
  /**
   * Amount in Checkout.com's minor units (1999 USD is $19.99, 1000 KWD is 1 dinar).
   * @default 1999
   */
  amount?: number;
  /**
   * ISO 4217 code.
   * @default 'USD'
   */
  currency?: string;
  /** @default a random `evt_…` */
  eventId?: string;
  /** The payment's id. @default a random `pay_…` */
  paymentId?: string;
  /** When the event happened. @default now */
  createdOn?: Date;
}

/** Options of the dispute fixtures. */
export interface CheckoutComDisputeFixtureOptions extends CheckoutComFixtureOptions {
  /** @default a random `dsp_…` */
  disputeId?: string;
}

const API = 'https://api.sandbox.checkout.com';
const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567';

/** An id as Checkout.com forms them: a prefix and 26 base32 characters. */
function checkoutComId(prefix: string): string {
  let id = `${prefix}_`;
  for (let i = 0; i < 26; i++) id += BASE32[randomInt(BASE32.length)];
  return id;
}

interface Resolved {
  reference: string;
  amount: number;
  currency: string;
  eventId: string;
  paymentId: string;
  createdOn: string;
}

function resolve(options: CheckoutComFixtureOptions): Resolved {
  return {
    reference: options.reference ?? 'order-1001',
    amount: options.amount ?? 1999,
    currency: (options.currency ?? 'USD').toUpperCase(),
    eventId: options.eventId ?? checkoutComId('evt'),
    paymentId: options.paymentId ?? checkoutComId('pay'),
    createdOn: (options.createdOn ?? new Date()).toISOString(),
  };
}

function envelope(
  o: Resolved,
  type: string,
  data: Record<string, unknown>,
  subject: string,
): CheckoutComWebhookEvent {
  return {
    id: o.eventId,
    type,
    version: '1.0.33',
    created_on: o.createdOn,
    data,
    _links: {
      self: { href: `${API}/workflows/events/${o.eventId}` },
      subject: { href: `${API}/workflows/events/subject/${subject}` },
    },
  };
}

/** What a payment's balances are after the event. */
function balances(type: string, amount: number): Record<string, number> {
  const authorized = type === 'payment_declined' ? 0 : amount;
  const captured = ['payment_captured', 'payment_refunded', 'payment_refund_declined'].includes(
    type,
  )
    ? amount
    : 0;
  const voided = type === 'payment_voided' ? amount : 0;
  const refunded = type === 'payment_refunded' ? amount : 0;
  return {
    total_authorized: authorized,
    total_voided: voided,
    available_to_void: authorized - captured - voided,
    total_captured: captured,
    available_to_capture: authorized - captured - voided,
    total_refunded: refunded,
    available_to_refund: captured - refunded,
  };
}

const DECLINED = new Set([
  'payment_declined',
  'payment_capture_declined',
  'payment_refund_declined',
]);

function paymentEvent(type: string, options: CheckoutComFixtureOptions): CheckoutComWebhookEvent {
  const o = resolve(options);
  const declined = DECLINED.has(type);
  const data: Record<string, unknown> = {
    id: o.paymentId,
    action_id: checkoutComId('act'),
    reference: o.reference,
    amount: o.amount,
    currency: o.currency,
    processed_on: o.createdOn,
    response_code: declined ? '20005' : '10000',
    response_summary: declined ? 'Declined - Do Not Honour' : 'Approved',
    ...(type === 'payment_approved' || type === 'payment_declined'
      ? {
          payment_type: 'Regular',
          ...(declined ? {} : { auth_code: String(randomInt(100000, 999999)) }),
          risk: { flagged: false, score: 12 },
          source: {
            id: checkoutComId('src'),
            type: 'card',
            expiry_month: 12,
            expiry_year: 2030,
            scheme: 'VISA',
            last_4: '4242',
            bin: '424242',
            card_type: 'CREDIT',
            issuer_country: 'GB',
          },
          customer: { id: checkoutComId('cus'), email: 'darlene@example.com' },
        }
      : {}),
    balances: balances(type, o.amount),
    metadata: { order_id: o.reference },
    event_links: {
      payment: `${API}/payments/${o.paymentId}`,
      payment_actions: `${API}/payments/${o.paymentId}/actions`,
    },
  };
  return envelope(o, type, data, o.paymentId);
}

function disputeEvent(
  type: string,
  options: CheckoutComDisputeFixtureOptions,
): CheckoutComWebhookEvent {
  const o = resolve(options);
  const disputeId = options.disputeId ?? checkoutComId('dsp');
  const evidenceBy = new Date(Date.parse(o.createdOn) + 14 * 24 * 3600 * 1000);
  return envelope(
    o,
    type,
    {
      id: disputeId,
      category: 'fraudulent',
      amount: o.amount,
      currency: o.currency,
      reason_code: '10.4',
      payment_id: o.paymentId,
      payment_action_id: checkoutComId('act'),
      payment_reference: o.reference,
      payment_method: 'VISA',
      ...(type === 'dispute_evidence_required' || type === 'dispute_received'
        ? { evidence_required_by: evidenceBy.toISOString() }
        : {}),
      date: o.createdOn,
    },
    disputeId,
  );
}

/**
 * Builders of Checkout.com webhook events in the shape Checkout.com sends, to sign with
 * `signCheckoutComDelivery()`.
 * @example
 * checkoutComFixtures.paymentCaptured({ reference: 'order-42', amount: 1999, currency: 'EUR' })
 */
export const checkoutComFixtures = {
  /** `payment_approved` (→ `payment.authorized`). */
  paymentApproved(options: CheckoutComFixtureOptions = {}): CheckoutComWebhookEvent {
    return paymentEvent('payment_approved', options);
  },

  /** `payment_captured` (→ `payment.succeeded`). */
  paymentCaptured(options: CheckoutComFixtureOptions = {}): CheckoutComWebhookEvent {
    return paymentEvent('payment_captured', options);
  },

  /** `payment_declined` (→ `payment.failed`). */
  paymentDeclined(options: CheckoutComFixtureOptions = {}): CheckoutComWebhookEvent {
    return paymentEvent('payment_declined', options);
  },

  /** `payment_voided` (→ `payment.canceled`). */
  paymentVoided(options: CheckoutComFixtureOptions = {}): CheckoutComWebhookEvent {
    return paymentEvent('payment_voided', options);
  },

  /** `payment_refunded` (→ `refund.succeeded`); `amount` is this refund's. */
  paymentRefunded(options: CheckoutComFixtureOptions = {}): CheckoutComWebhookEvent {
    return paymentEvent('payment_refunded', options);
  },

  /** `payment_refund_declined` (→ `refund.failed`). */
  paymentRefundDeclined(options: CheckoutComFixtureOptions = {}): CheckoutComWebhookEvent {
    return paymentEvent('payment_refund_declined', options);
  },

  /** `dispute_evidence_required` (→ `dispute.opened`). */
  disputeEvidenceRequired(options: CheckoutComDisputeFixtureOptions = {}): CheckoutComWebhookEvent {
    return disputeEvent('dispute_evidence_required', options);
  },

  /** `dispute_won` (→ `dispute.closed`). */
  disputeWon(options: CheckoutComDisputeFixtureOptions = {}): CheckoutComWebhookEvent {
    return disputeEvent('dispute_won', options);
  },

  /** `dispute_lost` (→ `dispute.closed`). */
  disputeLost(options: CheckoutComDisputeFixtureOptions = {}): CheckoutComWebhookEvent {
    return disputeEvent('dispute_lost', options);
  },
};
