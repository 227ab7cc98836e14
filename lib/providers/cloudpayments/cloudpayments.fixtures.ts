import { randomInt } from 'node:crypto';
import { formatMinorUnits } from '../../core/minor-units';

/** A CloudPayments notification's parameters, as `signCloudPaymentsDelivery()` takes them. */
export type CloudPaymentsNotificationFields = Record<string, string | number>;

/** What a fixture is about; every field has a realistic default. */
export interface CloudPaymentsFixtureOptions {
  /**
   * Your order id, sent to CloudPayments as `InvoiceId`.
   * @default 'order-1001'
   */
  invoiceId?: string;
  /**
   * Amount in minor units, written as CloudPayments writes it (`19.99`).
   * @default 1999
   */
  amount?: number;
  /**
   * ISO 4217 code.
   * @default 'RUB'
   */
  currency?: string;
  /** CloudPayments' transaction id. @default a random 10-digit number */
  transactionId?: number;
  /** When the transaction was created (UTC). @default now */
  dateTime?: Date;
  /** The payer's account in your shop (`AccountId`). @default 'user-77' */
  accountId?: string;
}

/** Options of the Pay fixture. */
export interface CloudPaymentsPayFixtureOptions extends CloudPaymentsFixtureOptions {
  /** `Completed` for one-step payments, `Authorized` for two-step ones. @default 'Completed' */
  status?: 'Completed' | 'Authorized';
}

/** Options of the Refund fixture. */
export interface CloudPaymentsRefundFixtureOptions extends CloudPaymentsFixtureOptions {
  /** The refunded payment's transaction id. @default a random 10-digit number */
  paymentTransactionId?: number;
}

/** Options of the Recurrent fixture. */
export interface CloudPaymentsRecurrentFixtureOptions extends CloudPaymentsFixtureOptions {
  /** The subscription id. @default `sc_` and 29 random hex digits */
  subscriptionId?: string;
  /** @default 'Active' */
  status?: 'Active' | 'PastDue' | 'Cancelled' | 'Rejected' | 'Expired';
  /** @default 1 */
  successfulTransactions?: number;
  /** @default 0 */
  failedTransactions?: number;
}

const HEX = '0123456789abcdef';

function randomHex(length: number): string {
  let text = '';
  for (let i = 0; i < length; i++) text += HEX[randomInt(HEX.length)];
  return text;
}

function transactionId(): number {
  return randomInt(1_000_000_000, 2_000_000_000);
}

/** `2024-05-12 18:14:14`: how CloudPayments writes times, in UTC. */
function dateTime(date: Date): string {
  return date.toISOString().slice(0, 19).replace('T', ' ');
}

interface Resolved {
  invoiceId: string;
  amount: string;
  currency: string;
  transactionId: number;
  dateTime: string;
  accountId: string;
}

function resolve(options: CloudPaymentsFixtureOptions): Resolved {
  const currency = (options.currency ?? 'RUB').toUpperCase();
  return {
    invoiceId: options.invoiceId ?? 'order-1001',
    amount: formatMinorUnits(options.amount ?? 1999, currency),
    currency,
    transactionId: options.transactionId ?? transactionId(),
    dateTime: dateTime(options.dateTime ?? new Date()),
    accountId: options.accountId ?? 'user-77',
  };
}

/** What Check, Pay and Fail share: the transaction, the card and the payer. */
function transaction(o: Resolved): CloudPaymentsNotificationFields {
  return {
    TransactionId: o.transactionId,
    Amount: o.amount,
    Currency: o.currency,
    PaymentAmount: o.amount,
    PaymentCurrency: o.currency,
    OperationType: 'Payment',
    InvoiceId: o.invoiceId,
    AccountId: o.accountId,
    SubscriptionId: '',
    Name: 'IVAN PETROV',
    Email: 'buyer@example.com',
    DateTime: o.dateTime,
    IpAddress: '178.64.12.34',
    IpCountry: 'RU',
    IpCity: 'Москва',
    IpRegion: 'Москва',
    IpDistrict: 'Центральный федеральный округ',
    CardId: randomHex(32),
    CardFirstSix: '424242',
    CardLastFour: '4242',
    CardType: 'Visa',
    CardExpDate: '12/29',
    Issuer: 'Sberbank of Russia',
    IssuerBankCountry: 'RU',
    Description: `Оплата заказа ${o.invoiceId}`,
    TestMode: 0,
    PaymentMethod: 'Card',
    Data: JSON.stringify({ orderId: o.invoiceId }),
  };
}

/**
 * Builders of CloudPayments notifications, one per kind, with the parameters CloudPayments sends,
 * to sign with `signCloudPaymentsDelivery()` and post to the endpoint of that kind.
 * @example
 * cloudPaymentsFixtures.pay({ invoiceId: 'order-42', amount: 1999, status: 'Completed' })
 */
export const cloudPaymentsFixtures = {
  /** Check: before the payment, asking the shop whether to take it (`cloudpayments:check`). */
  check(options: CloudPaymentsPayFixtureOptions = {}): CloudPaymentsNotificationFields {
    return { ...transaction(resolve(options)), Status: options.status ?? 'Completed' };
  },

  /** Pay: Completed → `payment.succeeded`, Authorized (two-step) → `payment.authorized`. */
  pay(options: CloudPaymentsPayFixtureOptions = {}): CloudPaymentsNotificationFields {
    const o = resolve(options);
    return {
      ...transaction(o),
      Status: options.status ?? 'Completed',
      AuthCode: String(randomInt(100000, 999999)),
      Token: `tk_${randomHex(29)}`,
      GatewayName: 'CloudPayments',
      TotalFee: 0,
      CardProduct: 'I',
      Rrn: String(randomInt(100000000, 999999999)) + '123',
    };
  },

  /** Fail: the payment was declined (`payment.failed`). */
  fail(options: CloudPaymentsFixtureOptions = {}): CloudPaymentsNotificationFields {
    return {
      ...transaction(resolve(options)),
      Status: 'Declined',
      Reason: 'InsufficientFunds',
      ReasonCode: 5051,
      GatewayName: 'CloudPayments',
    };
  },

  /** Confirm: an authorized two-step payment was captured (`payment.succeeded`). */
  confirm(options: CloudPaymentsFixtureOptions = {}): CloudPaymentsNotificationFields {
    const o = resolve(options);
    return {
      TransactionId: o.transactionId,
      Amount: o.amount,
      Currency: o.currency,
      PaymentAmount: o.amount,
      PaymentCurrency: o.currency,
      DateTime: o.dateTime,
      CardFirstSix: '424242',
      CardLastFour: '4242',
      CardType: 'Visa',
      CardExpDate: '12/29',
      TestMode: 0,
      Status: 'Completed',
      InvoiceId: o.invoiceId,
      AccountId: o.accountId,
      Email: 'buyer@example.com',
      Data: JSON.stringify({ orderId: o.invoiceId }),
    };
  },

  /** Refund: a refund of a payment, with its own `TransactionId` (`refund.succeeded`). */
  refund(options: CloudPaymentsRefundFixtureOptions = {}): CloudPaymentsNotificationFields {
    const o = resolve(options);
    return {
      TransactionId: o.transactionId,
      PaymentTransactionId: options.paymentTransactionId ?? transactionId(),
      Amount: o.amount,
      DateTime: o.dateTime,
      OperationType: 'Refund',
      InvoiceId: o.invoiceId,
      AccountId: o.accountId,
      Email: 'buyer@example.com',
      Data: JSON.stringify({ orderId: o.invoiceId }),
      Rrn: String(randomInt(100000000, 999999999)) + '456',
    };
  },

  /** Cancel: an authorized payment was voided (`payment.canceled`). */
  cancel(options: CloudPaymentsFixtureOptions = {}): CloudPaymentsNotificationFields {
    const o = resolve(options);
    return {
      TransactionId: o.transactionId,
      Amount: o.amount,
      DateTime: o.dateTime,
      InvoiceId: o.invoiceId,
      AccountId: o.accountId,
      Email: 'buyer@example.com',
      Data: JSON.stringify({ orderId: o.invoiceId }),
    };
  },

  /** Recurrent: a subscription's status changed (`cloudpayments:recurrent`). */
  recurrent(options: CloudPaymentsRecurrentFixtureOptions = {}): CloudPaymentsNotificationFields {
    const o = resolve(options);
    return {
      Id: options.subscriptionId ?? `sc_${randomHex(29)}`,
      AccountId: o.accountId,
      Description: 'Подписка на тариф «Стандарт»',
      Email: 'buyer@example.com',
      Amount: o.amount,
      Currency: o.currency,
      RequireConfirmation: 'false',
      StartDate: o.dateTime,
      Interval: 'Month',
      Period: 1,
      Status: options.status ?? 'Active',
      SuccessfulTransactionsNumber: options.successfulTransactions ?? 1,
      FailedTransactionsNumber: options.failedTransactions ?? 0,
      LastTransactionDate: o.dateTime,
      NextTransactionDate: o.dateTime,
    };
  },
};
