import { randomInt } from 'node:crypto';

/** One GoCardless event as a webhook carries it. */
export interface GoCardlessEvent {
  /** `EV` and 12 characters, the same on every retry. */
  id: string;
  created_at: string;
  resource_type: string;
  action: string;
  links: Record<string, string>;
  details: {
    origin: string;
    cause: string;
    description: string;
    scheme?: string;
    reason_code?: string;
    will_attempt_retry?: boolean;
  };
  /** Metadata of the API request that caused the event (empty for GoCardless's own events). */
  metadata: Record<string, string>;
  /** The resource's own metadata, as your integration set it (webhooks only). */
  resource_metadata: Record<string, string>;
}

/** A GoCardless webhook body: up to 250 events, and the webhook's id. */
export interface GoCardlessWebhook {
  events: GoCardlessEvent[];
  meta: { webhook_id: string };
}

/** What an event fixture is about; every field has a realistic default. */
export interface GoCardlessFixtureOptions {
  /**
   * Your order id, in the payment's metadata under `orderId` (`resource_metadata`).
   * @default 'order-1001'
   */
  orderId?: string;
  /** @default `EV` and 12 random characters */
  eventId?: string;
  /** GoCardless's payment id. @default `PM` and 12 random characters */
  paymentId?: string;
  /** When GoCardless created the event. @default now */
  createdAt?: Date;
}

/** Options of the refund fixtures. */
export interface GoCardlessRefundFixtureOptions extends GoCardlessFixtureOptions {
  /** @default `RF` and 12 random characters */
  refundId?: string;
}

const ID_ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
// NOTE: a fixed creditor, so every fixture of one test run is for the same account.
const ORGANISATION = 'OR000F6AQ2S1NA';

/** A GoCardless id: its two-letter prefix and 12 characters. */
function gcId(prefix: string): string {
  let id = '';
  for (let i = 0; i < 12; i++) id += ID_ALPHABET[randomInt(ID_ALPHABET.length)];
  return `${prefix}${id}`;
}

function event(
  options: GoCardlessFixtureOptions,
  resourceType: string,
  action: string,
  links: Record<string, string>,
  details: GoCardlessEvent['details'],
): GoCardlessEvent {
  return {
    id: options.eventId ?? gcId('EV'),
    created_at: (options.createdAt ?? new Date()).toISOString(),
    resource_type: resourceType,
    action,
    links: { ...links, organisation: ORGANISATION },
    details,
    metadata: {},
    resource_metadata: { orderId: options.orderId ?? 'order-1001' },
  };
}

function paymentEvent(
  action: string,
  options: GoCardlessFixtureOptions,
  details: GoCardlessEvent['details'],
  links: Record<string, string> = {},
): GoCardlessEvent {
  return event(
    options,
    'payments',
    action,
    { payment: options.paymentId ?? gcId('PM'), ...links },
    details,
  );
}

function refundEvent(
  action: string,
  options: GoCardlessRefundFixtureOptions,
  details: GoCardlessEvent['details'],
): GoCardlessEvent {
  return event(
    options,
    'refunds',
    action,
    { refund: options.refundId ?? gcId('RF'), payment: options.paymentId ?? gcId('PM') },
    details,
  );
}

/**
 * Builders of GoCardless events in the shape GoCardless sends, and of the webhook that carries
 * them, to sign with `signGoCardlessDelivery()`.
 * @example
 * goCardlessFixtures.webhook(goCardlessFixtures.paymentConfirmed({ orderId: 'order-42' }))
 */
export const goCardlessFixtures = {
  /** A webhook body carrying `events` (GoCardless sends up to 250 in one request). */
  webhook(...events: GoCardlessEvent[]): GoCardlessWebhook {
    return { events, meta: { webhook_id: gcId('WB') } };
  },

  /** `payments.confirmed` (→ `payment.succeeded`): the banks can no longer return the collection. */
  paymentConfirmed(options: GoCardlessFixtureOptions = {}): GoCardlessEvent {
    return paymentEvent('confirmed', options, {
      origin: 'gocardless',
      cause: 'payment_confirmed',
      description: 'The payment is confirmed: the time for the banks to return it has passed.',
    });
  },

  /** `payments.paid_out` (kept native): GoCardless has paid the money out to you. */
  paymentPaidOut(options: GoCardlessFixtureOptions = {}): GoCardlessEvent {
    return paymentEvent(
      'paid_out',
      options,
      {
        origin: 'gocardless',
        cause: 'payment_paid_out',
        description: 'The payment was paid out by GoCardless.',
      },
      { payout: gcId('PO') },
    );
  },

  /** `payments.failed` (→ `payment.failed`): the customer's bank refused the collection. */
  paymentFailed(options: GoCardlessFixtureOptions = {}): GoCardlessEvent {
    return paymentEvent('failed', options, {
      origin: 'bank',
      cause: 'insufficient_funds',
      description: "The customer's account had insufficient funds to make this payment.",
      scheme: 'bacs',
      reason_code: 'ARUDD-0',
      will_attempt_retry: false,
    });
  },

  /** `payments.cancelled` (→ `payment.canceled`). */
  paymentCancelled(options: GoCardlessFixtureOptions = {}): GoCardlessEvent {
    return paymentEvent('cancelled', options, {
      origin: 'api',
      cause: 'payment_cancelled',
      description: 'The payment was cancelled.',
    });
  },

  /** `payments.charged_back` (→ `dispute.opened`): the customer asked their bank to reverse it. */
  paymentChargedBack(options: GoCardlessFixtureOptions = {}): GoCardlessEvent {
    return paymentEvent('charged_back', options, {
      origin: 'bank',
      cause: 'authorisation_disputed',
      description: 'The customer disputed having authorised this payment.',
      scheme: 'bacs',
      reason_code: 'DDICA-1',
    });
  },

  /** `refunds.paid` (→ `refund.succeeded`). */
  refundPaid(options: GoCardlessRefundFixtureOptions = {}): GoCardlessEvent {
    return refundEvent('paid', options, {
      origin: 'gocardless',
      cause: 'refund_paid',
      description: 'The refund was paid to the customer.',
    });
  },

  /** `refunds.failed` (→ `refund.failed`). */
  refundFailed(options: GoCardlessRefundFixtureOptions = {}): GoCardlessEvent {
    return refundEvent('failed', options, {
      origin: 'gocardless',
      cause: 'refund_failed',
      description: 'The refund could not be sent to the customer.',
    });
  },
};
