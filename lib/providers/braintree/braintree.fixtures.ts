import { randomInt } from 'node:crypto';
import { formatMinorUnits } from '../../core/minor-units';
import { escapeXml } from './braintree-xml-writer';

/** Braintree transaction statuses a notification's transaction may carry. */
export type BraintreeTransactionStatus =
  | 'authorized'
  | 'submitted_for_settlement'
  | 'settling'
  | 'settled'
  | 'settlement_pending'
  | 'settlement_declined'
  | 'processor_declined'
  | 'failed'
  | 'voided';

/** Braintree dispute statuses. */
export type BraintreeDisputeStatus =
  'open' | 'under_review' | 'disputed' | 'won' | 'lost' | 'accepted' | 'auto_accepted' | 'expired';

/** What a fixture is about; every field has a realistic default. */
export interface BraintreeFixtureOptions {
  /**
   * Your order id, sent to Braintree as the transaction's `orderId` (`<order-id>`).
   * @default 'order-1001'
   */
  orderId?: string;
  /**
   * Amount in minor units; written as Braintree writes it, a decimal in the currency.
   * @default 1099
   */
  amount?: number;
  /**
   * ISO 4217 code of the merchant account.
   * @default 'USD'
   */
  currency?: string;
  /** Braintree's transaction id. @default 8 random lowercase letters and digits */
  transactionId?: string;
  /** The notification's `timestamp`. @default now */
  timestamp?: Date;
}

/** Options of the transaction fixtures. */
export interface BraintreeTransactionFixtureOptions extends BraintreeFixtureOptions {
  /**
   * `'sale'` for a payment, `'credit'` for a refund (then `refundedTransactionId` is the sale).
   * @default 'sale'
   */
  type?: 'sale' | 'credit';
  /** The refunded sale, for a `credit`. @default 8 random lowercase letters and digits */
  refundedTransactionId?: string;
}

/** Options of the subscription fixtures. */
export interface BraintreeSubscriptionFixtureOptions extends BraintreeFixtureOptions {
  /** @default 6 random lowercase letters and digits */
  subscriptionId?: string;
}

/** Options of the dispute fixtures. */
export interface BraintreeDisputeFixtureOptions extends BraintreeFixtureOptions {
  /** @default 16 random lowercase letters and digits */
  disputeId?: string;
}

const ID_ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';
// NOTE: a fixed merchant account, so every fixture of one test run is for the same account.
const MERCHANT_ACCOUNT_ID = 'shopexampleUSD';

function randomId(length: number): string {
  let id = '';
  for (let i = 0; i < length; i++) id += ID_ALPHABET[randomInt(ID_ALPHABET.length)];
  return id;
}

/** A date as Braintree writes `datetime` values: ISO 8601 UTC to the second. */
function braintreeDatetime(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

interface Resolved {
  orderId: string;
  amount: string;
  currency: string;
  transactionId: string;
  timestamp: Date;
}

function resolve(options: BraintreeFixtureOptions): Resolved {
  const currency = (options.currency ?? 'USD').toUpperCase();
  return {
    orderId: options.orderId ?? 'order-1001',
    amount: formatMinorUnits(options.amount ?? 1099, currency),
    currency,
    transactionId: options.transactionId ?? randomId(8),
    timestamp: options.timestamp ?? new Date(),
  };
}

/** The `<notification>` document around a subject. */
export function braintreeNotificationXml(kind: string, timestamp: Date, subject: string): string {
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<notification>',
    `  <timestamp type="datetime">${braintreeDatetime(timestamp)}</timestamp>`,
    `  <kind>${escapeXml(kind)}</kind>`,
    `  <subject>${subject}</subject>`,
    '</notification>',
    '',
  ].join('\n');
}

function transaction(
  o: Resolved,
  status: BraintreeTransactionStatus,
  type: 'sale' | 'credit',
  refunded?: string,
): string {
  const at = braintreeDatetime(o.timestamp);
  return `
    <transaction>
      <id>${escapeXml(o.transactionId)}</id>
      <status>${escapeXml(status)}</status>
      <type>${type}</type>
      <currency-iso-code>${escapeXml(o.currency)}</currency-iso-code>
      <amount>${o.amount}</amount>
      <merchant-account-id>${MERCHANT_ACCOUNT_ID}</merchant-account-id>
      <order-id>${escapeXml(o.orderId)}</order-id>
      <created-at type="datetime">${at}</created-at>
      <updated-at type="datetime">${at}</updated-at>
      <refunded-transaction-id${refunded === undefined ? ' nil="true"/>' : `>${escapeXml(refunded)}</refunded-transaction-id>`}
      <payment-instrument-type>credit_card</payment-instrument-type>
      <credit-card>
        <bin>411111</bin>
        <last-4>1111</last-4>
        <card-type>Visa</card-type>
        <expiration-month>12</expiration-month>
        <expiration-year>2030</expiration-year>
      </credit-card>
    </transaction>`;
}

function transactionEvent(
  kind: string,
  status: BraintreeTransactionStatus,
  options: BraintreeTransactionFixtureOptions,
): string {
  const o = resolve(options);
  const type = options.type ?? 'sale';
  const refunded = type === 'credit' ? (options.refundedTransactionId ?? randomId(8)) : undefined;
  return braintreeNotificationXml(kind, o.timestamp, transaction(o, status, type, refunded));
}

function subscriptionEvent(
  kind: string,
  status: BraintreeTransactionStatus,
  options: BraintreeSubscriptionFixtureOptions,
): string {
  const o = resolve(options);
  const id = escapeXml(options.subscriptionId ?? randomId(6));
  const subject = `
    <subscription>
      <id>${id}</id>
      <status>${status === 'failed' ? 'Past Due' : 'Active'}</status>
      <plan-id>monthly</plan-id>
      <price>${o.amount}</price>
      <merchant-account-id>${MERCHANT_ACCOUNT_ID}</merchant-account-id>
      <transactions type="array">${transaction(o, status, 'sale')}
      </transactions>
      <add-ons type="array"/>
      <discounts type="array"/>
    </subscription>`;
  return braintreeNotificationXml(kind, o.timestamp, subject);
}

function disputeEvent(
  kind: string,
  status: BraintreeDisputeStatus,
  options: BraintreeDisputeFixtureOptions,
): string {
  const o = resolve(options);
  const day = o.timestamp.toISOString().slice(0, 10);
  const subject = `
    <dispute>
      <id>${escapeXml(options.disputeId ?? randomId(16))}</id>
      <amount-disputed>${o.amount}</amount-disputed>
      <amount-won>${status === 'won' ? o.amount : '0.00'}</amount-won>
      <currency-iso-code>${escapeXml(o.currency)}</currency-iso-code>
      <kind>chargeback</kind>
      <status>${status}</status>
      <reason>fraud</reason>
      <received-date type="date">${day}</received-date>
      <merchant-account-id>${MERCHANT_ACCOUNT_ID}</merchant-account-id>
      <transaction>
        <id>${escapeXml(o.transactionId)}</id>
        <amount>${o.amount}</amount>
        <order-id>${escapeXml(o.orderId)}</order-id>
      </transaction>
    </dispute>`;
  return braintreeNotificationXml(kind, o.timestamp, subject);
}

/**
 * Builders of Braintree notifications: the XML that `bt_payload` carries, to sign with
 * `signBraintreeDelivery()`.
 * @example
 * braintreeFixtures.transactionSettled({ orderId: 'order-42', amount: 1099 })
 */
export const braintreeFixtures = {
  /** `transaction_settled` (a sale → `payment.succeeded`; `type: 'credit'` → `refund.succeeded`). */
  transactionSettled(options: BraintreeTransactionFixtureOptions = {}): string {
    return transactionEvent('transaction_settled', 'settled', options);
  },

  /** `transaction_settlement_declined` (a sale → `payment.failed`; a credit → `refund.failed`). */
  transactionSettlementDeclined(options: BraintreeTransactionFixtureOptions = {}): string {
    return transactionEvent('transaction_settlement_declined', 'settlement_declined', options);
  },

  /** `subscription_charged_successfully` (→ `payment.succeeded`), the new charge first. */
  subscriptionChargedSuccessfully(options: BraintreeSubscriptionFixtureOptions = {}): string {
    return subscriptionEvent(
      'subscription_charged_successfully',
      'submitted_for_settlement',
      options,
    );
  },

  /** `subscription_charged_unsuccessfully` (→ `payment.failed`). */
  subscriptionChargedUnsuccessfully(options: BraintreeSubscriptionFixtureOptions = {}): string {
    return subscriptionEvent('subscription_charged_unsuccessfully', 'failed', options);
  },

  /** `refund_failed` (→ `refund.failed`): a credit the processor declined. */
  refundFailed(options: BraintreeTransactionFixtureOptions = {}): string {
    return transactionEvent('refund_failed', 'processor_declined', { ...options, type: 'credit' });
  },

  /** `dispute_opened` (→ `dispute.opened`). */
  disputeOpened(options: BraintreeDisputeFixtureOptions = {}): string {
    return disputeEvent('dispute_opened', 'open', options);
  },

  /** `dispute_won` (→ `dispute.closed`). */
  disputeWon(options: BraintreeDisputeFixtureOptions = {}): string {
    return disputeEvent('dispute_won', 'won', options);
  },

  /** `dispute_lost` (→ `dispute.closed`). */
  disputeLost(options: BraintreeDisputeFixtureOptions = {}): string {
    return disputeEvent('dispute_lost', 'lost', options);
  },

  /** `check`: the test notification the Control Panel sends (stays `braintree:check`). */
  check(options: Pick<BraintreeFixtureOptions, 'timestamp'> = {}): string {
    return braintreeNotificationXml(
      'check',
      options.timestamp ?? new Date(),
      '<check type="boolean">true</check>',
    );
  },
};
