import { randomInt } from 'node:crypto';

/** A Paystack webhook event as Paystack posts it. */
export interface PaystackEvent {
  /** The event, e.g. `'charge.success'`. */
  event: string;
  data: Record<string, unknown>;
}

/** What a fixture is about; every field has a realistic default. */
export interface PaystackFixtureOptions {
  /**
   * The transaction reference, the shop's order id sent when initializing the transaction.
   * @default 'order-1001'
   */
  reference?: string;
  /**
   * Amount in the currency's subunit (kobo for NGN).
   * @default 500000 (NGN 5,000)
   */
  amount?: number;
  /**
   * `NGN`, `GHS`, `ZAR`, `KES`, `USD` or `XOF`.
   * @default 'NGN'
   */
  currency?: string;
  /** Paystack's transaction id. @default a random 10-digit number */
  transactionId?: number;
  /** When the charge was paid. @default now */
  paidAt?: Date;
}

/** Options of the refund fixtures. */
export interface PaystackRefundFixtureOptions extends PaystackFixtureOptions {
  /** The refund's id. @default a random 7-digit number */
  refundId?: number;
}

/** Options of the dispute fixtures. */
export interface PaystackDisputeFixtureOptions extends PaystackFixtureOptions {
  /** The dispute's id. @default a random 7-digit number */
  disputeId?: number;
}

const ALPHANUMERIC = 'abcdefghijklmnopqrstuvwxyz0123456789';
// NOTE: a fixed integration and customer, so every fixture of one test run is for one account.
const INTEGRATION = 463433;
const CUSTOMER = {
  id: 84312,
  first_name: 'Adaeze',
  last_name: 'Okafor',
  email: 'adaeze.okafor@example.com',
  customer_code: 'CUS_xnxdt6s1zg1f4nx',
  phone: null,
  metadata: null,
  risk_action: 'default',
};

function randomCode(length: number): string {
  let code = '';
  for (let i = 0; i < length; i++) code += ALPHANUMERIC[randomInt(ALPHANUMERIC.length)];
  return code;
}

function randomNumber(digits: number): number {
  return randomInt(10 ** (digits - 1), 10 ** digits);
}

interface Resolved {
  reference: string;
  amount: number;
  currency: string;
  transactionId: number;
  paidAt: Date;
}

function resolve(options: PaystackFixtureOptions): Resolved {
  return {
    reference: options.reference ?? 'order-1001',
    amount: options.amount ?? 500000,
    currency: (options.currency ?? 'NGN').toUpperCase(),
    transactionId: options.transactionId ?? randomNumber(10),
    paidAt: options.paidAt ?? new Date(),
  };
}

function transaction(o: Resolved, status: 'success' | 'failed'): Record<string, unknown> {
  const paidAt = o.paidAt.toISOString();
  const createdAt = new Date(o.paidAt.getTime() - 25_000).toISOString();
  return {
    id: o.transactionId,
    domain: 'test',
    status,
    reference: o.reference,
    amount: o.amount,
    message: null,
    gateway_response: status === 'success' ? 'Successful' : 'Declined',
    paid_at: paidAt,
    created_at: createdAt,
    channel: 'card',
    currency: o.currency,
    ip_address: '102.89.34.17',
    metadata: { orderId: o.reference },
    fees: Math.min(Math.round(o.amount * 0.015) + 10000, 200000),
    customer: CUSTOMER,
    authorization: {
      authorization_code: `AUTH_${randomCode(10)}`,
      bin: '408408',
      last4: '4081',
      exp_month: '12',
      exp_year: '2030',
      channel: 'card',
      card_type: 'visa ',
      bank: 'TEST BANK',
      country_code: 'NG',
      brand: 'visa',
      reusable: true,
      signature: `SIG_${randomCode(20)}`,
      account_name: null,
    },
    plan: {},
    requested_amount: o.amount,
  };
}

function refund(
  event: string,
  status: string,
  options: PaystackRefundFixtureOptions,
): PaystackEvent {
  const o = resolve(options);
  return {
    event,
    data: {
      id: options.refundId ?? randomNumber(7),
      status,
      transaction_reference: o.reference,
      refund_reference: status === 'processed' ? `RFD_${randomCode(12)}` : null,
      amount: o.amount,
      currency: o.currency,
      processor: 'visa',
      customer: {
        first_name: CUSTOMER.first_name,
        last_name: CUSTOMER.last_name,
        email: CUSTOMER.email,
      },
      integration: INTEGRATION,
      domain: 'test',
    },
  };
}

function dispute(
  event: string,
  status: string,
  resolution: string | null,
  options: PaystackDisputeFixtureOptions,
): PaystackEvent {
  const o = resolve(options);
  const createdAt = o.paidAt.toISOString();
  return {
    event,
    data: {
      id: options.disputeId ?? randomNumber(7),
      refund_amount: o.amount,
      currency: o.currency,
      status,
      resolution,
      domain: 'test',
      transaction: transaction(o, 'success'),
      category: 'chargeback',
      customer: CUSTOMER,
      source: 'bank',
      dueAt: new Date(o.paidAt.getTime() + 7 * 24 * 3600 * 1000).toISOString(),
      createdAt,
      updatedAt: resolution === null ? createdAt : new Date().toISOString(),
      resolvedAt: resolution === null ? null : new Date().toISOString(),
    },
  };
}

/**
 * Builders of Paystack events in the shape Paystack sends, to sign with `signPaystackDelivery()`.
 * @example
 * paystackFixtures.chargeSuccess({ reference: 'order-42', amount: 500000, currency: 'NGN' })
 */
export const paystackFixtures = {
  /** `charge.success` (→ `payment.succeeded`). */
  chargeSuccess(options: PaystackFixtureOptions = {}): PaystackEvent {
    return { event: 'charge.success', data: transaction(resolve(options), 'success') };
  },

  /** `refund.processed` (→ `refund.succeeded`): the refund reached the customer. */
  refundProcessed(options: PaystackRefundFixtureOptions = {}): PaystackEvent {
    return refund('refund.processed', 'processed', options);
  },

  /** `refund.pending` (kept native): the refund is with the processor. */
  refundPending(options: PaystackRefundFixtureOptions = {}): PaystackEvent {
    return refund('refund.pending', 'pending', options);
  },

  /** `refund.failed` (→ `refund.failed`). */
  refundFailed(options: PaystackRefundFixtureOptions = {}): PaystackEvent {
    return refund('refund.failed', 'failed', options);
  },

  /** `charge.dispute.create` (→ `dispute.opened`). */
  disputeCreate(options: PaystackDisputeFixtureOptions = {}): PaystackEvent {
    return dispute('charge.dispute.create', 'awaiting-merchant-feedback', null, options);
  },

  /** `charge.dispute.resolve` (→ `dispute.closed`). */
  disputeResolve(options: PaystackDisputeFixtureOptions = {}): PaystackEvent {
    return dispute('charge.dispute.resolve', 'resolved', 'merchant-accepted', options);
  },

  /** `transfer.success` (kept native): a payout to a bank account went through. */
  transferSuccess(options: PaystackFixtureOptions = {}): PaystackEvent {
    const o = resolve(options);
    return {
      event: 'transfer.success',
      data: {
        id: o.transactionId,
        amount: o.amount,
        currency: o.currency,
        domain: 'test',
        reason: 'Supplier payment',
        reference: o.reference,
        source: 'balance',
        status: 'success',
        transfer_code: `TRF_${randomCode(15)}`,
        transferred_at: o.paidAt.toISOString(),
        integration: { id: INTEGRATION, is_live: false, business_name: 'Example Shop' },
        recipient: {
          type: 'nuban',
          name: 'Chidi Eze',
          recipient_code: `RCP_${randomCode(15)}`,
          details: {
            account_number: '0123456789',
            bank_code: '058',
            bank_name: 'Guaranty Trust Bank',
          },
        },
        createdAt: o.paidAt.toISOString(),
        updatedAt: o.paidAt.toISOString(),
      },
    };
  },
};
