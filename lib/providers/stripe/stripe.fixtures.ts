/** A Stripe API object as a fixture builds it: its id, its `object` name and the rest. */
export interface StripeFixtureObject {
  /** The object's id, e.g. `pi_…`, `ch_…`, `re_…`, `cs_test_…`. */
  readonly id: string;
  /** What it is: `'payment_intent'`, `'charge'`, `'refund'`, `'checkout.session'`, `'dispute'`. */
  readonly object: string;
  /** Every other field, as the API returns it. */
  readonly [field: string]: unknown;
}

/** PaymentIntent statuses. */
export type StripePaymentIntentStatus =
  | 'requires_payment_method'
  | 'requires_confirmation'
  | 'requires_action'
  | 'processing'
  | 'requires_capture'
  | 'canceled'
  | 'succeeded';

/** Fields a fixture may replace; the fixture's own stay unless named here. */
export type StripeFixtureOverrides = Readonly<Record<string, unknown>>;

// NOTE: fixed ids and times, so one fixture refers to another (a refund to its payment) and a
// test can name them; `ids` on `stripeFixtures` hands them out.
const IDS = Object.freeze({
  paymentIntent: 'pi_3QkV7cLkdIwHu7ix0T5bL2Wd',
  charge: 'ch_3QkV7cLkdIwHu7ix0cG4pRrK',
  refund: 're_3QkV7cLkdIwHu7ix0Yw1mJqE',
  checkoutSession: 'cs_test_a1Xq6fNwV3pQ8tYb2LmZrK9sJd4HgE7cU5oWnA0iTjR2yPxBvMz',
  dispute: 'du_1QkW2dLkdIwHu7ixqS8rNm4T',
  paymentMethod: 'pm_1QkV7bLkdIwHu7ixyR3nVp6A',
  balanceTransaction: 'txn_3QkV7cLkdIwHu7ix0kD9sWfB',
});
const CREATED = 1_764_660_000;
const ORDER_ID = 'order-1042';
const AMOUNT = 2500;
const CURRENCY = 'eur';

const BILLING_DETAILS = {
  address: {
    city: 'Berlin',
    country: 'DE',
    line1: 'Invalidenstraße 117',
    line2: null,
    postal_code: '10115',
    state: null,
  },
  email: 'jenny.rosen@example.com',
  name: 'Jenny Rosen',
  phone: null,
  tax_id: null,
};

const CARD_DETAILS = {
  card: {
    amount_authorized: AMOUNT,
    authorization_code: '582341',
    brand: 'visa',
    checks: { address_line1_check: null, address_postal_code_check: null, cvc_check: 'pass' },
    country: 'US',
    exp_month: 12,
    exp_year: 2030,
    extended_authorization: { status: 'disabled' },
    fingerprint: 'Xt5EWLLDS7FJjR1c',
    funding: 'credit',
    incremental_authorization: { status: 'unavailable' },
    installments: null,
    last4: '4242',
    mandate: null,
    multicapture: { status: 'unavailable' },
    network: 'visa',
    network_token: { used: false },
    overcapture: { maximum_amount_capturable: AMOUNT, status: 'unavailable' },
    three_d_secure: null,
    wallet: null,
  },
  type: 'card',
};

/** A fresh copy of `fields` with `overrides` on top, so a test may change what it gets. */
function fixture(
  fields: StripeFixtureObject,
  overrides: StripeFixtureOverrides,
): StripeFixtureObject {
  return { ...structuredClone(fields), ...overrides };
}

/** The charge a declined PaymentIntent tried, apart from the succeeded one of `charge()`. */
const DECLINED_CHARGE = 'ch_3QkV7cLkdIwHu7ix0aF1xYq3';

/** The card decline a PaymentIntent reports in `requires_payment_method` after a failed try. */
const CARD_DECLINED = {
  charge: DECLINED_CHARGE,
  code: 'card_declined',
  decline_code: 'insufficient_funds',
  doc_url: 'https://stripe.com/docs/error-codes/card-declined',
  message: 'Your card has insufficient funds.',
  payment_method: { id: IDS.paymentMethod, object: 'payment_method', type: 'card' },
  type: 'card_error',
};

const THREE_D_SECURE = {
  type: 'use_stripe_sdk',
  use_stripe_sdk: {
    directory_server_name: 'visa',
    server_transaction_id: 'd9c4b3a0-6a39-4b0f-9d34-3f1b8e2c7a51',
    three_d_secure_2_source: 'payatt_3QkV7cLkdIwHu7ix0pQ1zH8e',
    type: 'stripe_3ds2_fingerprint',
  },
};

/** The fields of a PaymentIntent in `status` that differ from one just confirmed. */
function paymentIntentStage(status: StripePaymentIntentStatus): Record<string, unknown> {
  switch (status) {
    case 'requires_payment_method':
      return {
        last_payment_error: CARD_DECLINED,
        latest_charge: DECLINED_CHARGE,
        payment_method: null,
      };
    case 'requires_action':
      return { next_action: THREE_D_SECURE };
    case 'processing':
      return { latest_charge: IDS.charge, processing: { card: {}, type: 'card' } };
    case 'requires_capture':
      return { amount_capturable: AMOUNT, capture_method: 'manual', latest_charge: IDS.charge };
    case 'canceled':
      return { canceled_at: CREATED + 3600, cancellation_reason: 'requested_by_customer' };
    case 'succeeded':
      return { amount_received: AMOUNT, latest_charge: IDS.charge };
    case 'requires_confirmation':
      return {};
  }
}

// NOTE: the builders `stripeFixtures` holds are arrow functions, so its declaration shows their
// signatures rather than `typeof` of functions no entry exports.
/**
 * A PaymentIntent of 25.00 EUR by card for `order-1042` (`metadata.orderId`) in `status`, with
 * the fields Stripe returns in it: `amount_received` and `latest_charge` once succeeded,
 * `amount_capturable` and a manual `capture_method` while `requires_capture`,
 * `last_payment_error` after a decline (`requires_payment_method`, the state of
 * `payment_intent.payment_failed`), `next_action` while `requires_action`, `canceled_at` and
 * `cancellation_reason` once canceled.
 * @param overrides fields to set or replace, e.g. `{ amount: 1999, metadata: { orderId: 'o-7' } }`.
 */
const paymentIntent = (
  status: StripePaymentIntentStatus = 'succeeded',
  overrides: StripeFixtureOverrides = {},
): StripeFixtureObject => {
  return fixture(
    {
      id: IDS.paymentIntent,
      object: 'payment_intent',
      amount: AMOUNT,
      amount_capturable: 0,
      amount_details: { tip: {} },
      amount_received: 0,
      application: null,
      application_fee_amount: null,
      automatic_payment_methods: { allow_redirects: 'always', enabled: true },
      canceled_at: null,
      cancellation_reason: null,
      capture_method: 'automatic_async',
      client_secret: `${IDS.paymentIntent}_secret_H2oTqk4wVnNzXb8cR6ufPj1sA`,
      confirmation_method: 'automatic',
      created: CREATED,
      currency: CURRENCY,
      customer: null,
      description: 'Order 1042',
      excluded_payment_method_types: null,
      last_payment_error: null,
      latest_charge: null,
      livemode: false,
      metadata: { orderId: ORDER_ID },
      next_action: null,
      on_behalf_of: null,
      payment_method: IDS.paymentMethod,
      payment_method_configuration_details: { id: 'pmc_1QkUzbLkdIwHu7ixGk2Tn9Vb', parent: null },
      payment_method_options: {
        card: {
          installments: null,
          mandate_options: null,
          network: null,
          request_three_d_secure: 'automatic',
        },
      },
      payment_method_types: ['card'],
      processing: null,
      receipt_email: null,
      review: null,
      setup_future_usage: null,
      shipping: null,
      source: null,
      statement_descriptor: null,
      statement_descriptor_suffix: null,
      status,
      transfer_data: null,
      transfer_group: null,
      ...paymentIntentStage(status),
    },
    overrides,
  );
};

/**
 * The succeeded Charge of the fixtures' PaymentIntent: 25.00 EUR captured on a Visa card. Stripe
 * copies the PaymentIntent's metadata onto it, so it carries `metadata.orderId` too.
 */
const charge = (overrides: StripeFixtureOverrides = {}): StripeFixtureObject => {
  return fixture(
    {
      id: IDS.charge,
      object: 'charge',
      amount: AMOUNT,
      amount_captured: AMOUNT,
      amount_refunded: 0,
      application: null,
      application_fee: null,
      application_fee_amount: null,
      balance_transaction: IDS.balanceTransaction,
      billing_details: BILLING_DETAILS,
      calculated_statement_descriptor: 'EXAMPLE SHOP',
      captured: true,
      created: CREATED + 2,
      currency: CURRENCY,
      customer: null,
      description: 'Order 1042',
      destination: null,
      dispute: null,
      disputed: false,
      failure_balance_transaction: null,
      failure_code: null,
      failure_message: null,
      fraud_details: {},
      livemode: false,
      metadata: { orderId: ORDER_ID },
      on_behalf_of: null,
      outcome: {
        advice_code: null,
        network_advice_code: null,
        network_decline_code: null,
        network_status: 'approved_by_network',
        reason: null,
        risk_level: 'normal',
        risk_score: 32,
        seller_message: 'Payment complete.',
        type: 'authorized',
      },
      paid: true,
      payment_intent: IDS.paymentIntent,
      payment_method: IDS.paymentMethod,
      payment_method_details: CARD_DETAILS,
      radar_options: {},
      receipt_email: null,
      receipt_number: null,
      receipt_url:
        'https://pay.stripe.com/receipts/payment/CAcaFwoVYWNjdF8xUWtVellMa2RJd0h1N2l4KKC8x8kGMgbQ3Gk2',
      refunded: false,
      review: null,
      shipping: null,
      source: null,
      source_transfer: null,
      statement_descriptor: null,
      statement_descriptor_suffix: null,
      status: 'succeeded',
      transfer_data: null,
      transfer_group: null,
    },
    overrides,
  );
};

/**
 * A succeeded Refund of the whole 25.00 EUR of the fixtures' PaymentIntent and Charge. Stripe
 * does not copy the payment's metadata onto a refund: this one carries `metadata.orderId` as a
 * refund does when the app sets it in `refunds.create()`; pass `{ metadata: {} }` for one made
 * without it (its events then have no `merchantRef`).
 */
const refund = (overrides: StripeFixtureOverrides = {}): StripeFixtureObject => {
  return fixture(
    {
      id: IDS.refund,
      object: 'refund',
      amount: AMOUNT,
      balance_transaction: 'txn_3QkV7cLkdIwHu7ix0nE2bTuC',
      charge: IDS.charge,
      created: CREATED + 86_400,
      currency: CURRENCY,
      destination_details: {
        card: {
          reference: '74836251904827364510283',
          reference_status: 'available',
          reference_type: 'acquirer_reference_number',
          type: 'refund',
        },
        type: 'card',
      },
      metadata: { orderId: ORDER_ID },
      payment_intent: IDS.paymentIntent,
      reason: 'requested_by_customer',
      receipt_number: null,
      source_transfer_reversal: null,
      status: 'succeeded',
      transfer_reversal: null,
    },
    overrides,
  );
};

/**
 * A completed, paid Checkout Session (`mode: 'payment'`) that made the fixtures' PaymentIntent:
 * 25.00 EUR, `client_reference_id` and `metadata.orderId` both `order-1042`. For a delayed
 * method still pending, pass `{ payment_status: 'unpaid' }`.
 */
const checkoutSession = (overrides: StripeFixtureOverrides = {}): StripeFixtureObject => {
  return fixture(
    {
      id: IDS.checkoutSession,
      object: 'checkout.session',
      adaptive_pricing: { enabled: false },
      after_expiration: null,
      allow_promotion_codes: null,
      amount_subtotal: AMOUNT,
      amount_total: AMOUNT,
      automatic_tax: { enabled: false, liability: null, provider: null, status: null },
      billing_address_collection: null,
      cancel_url: 'https://shop.example.com/cart',
      client_reference_id: ORDER_ID,
      client_secret: null,
      collected_information: null,
      consent: null,
      consent_collection: null,
      created: CREATED - 60,
      currency: CURRENCY,
      currency_conversion: null,
      custom_fields: [],
      custom_text: {
        after_submit: null,
        shipping_address: null,
        submit: null,
        terms_of_service_acceptance: null,
      },
      customer: null,
      customer_creation: 'if_required',
      customer_details: {
        address: BILLING_DETAILS.address,
        email: BILLING_DETAILS.email,
        name: BILLING_DETAILS.name,
        phone: null,
        tax_exempt: 'none',
        tax_ids: [],
      },
      customer_email: null,
      discounts: [],
      expires_at: CREATED - 60 + 86_400,
      invoice: null,
      invoice_creation: {
        enabled: false,
        invoice_data: {
          account_tax_ids: null,
          custom_fields: null,
          description: null,
          footer: null,
          issuer: null,
          metadata: {},
          rendering_options: null,
        },
      },
      livemode: false,
      locale: null,
      metadata: { orderId: ORDER_ID },
      mode: 'payment',
      origin_context: null,
      payment_intent: IDS.paymentIntent,
      payment_link: null,
      payment_method_collection: 'if_required',
      payment_method_configuration_details: { id: 'pmc_1QkUzbLkdIwHu7ixGk2Tn9Vb', parent: null },
      payment_method_options: { card: { request_three_d_secure: 'automatic' } },
      payment_method_types: ['card'],
      payment_status: 'paid',
      permissions: null,
      phone_number_collection: { enabled: false },
      recovered_from: null,
      saved_payment_method_options: null,
      setup_intent: null,
      shipping_address_collection: null,
      shipping_cost: null,
      shipping_options: [],
      status: 'complete',
      submit_type: null,
      subscription: null,
      success_url: 'https://shop.example.com/orders/order-1042/thanks',
      total_details: { amount_discount: 0, amount_shipping: 0, amount_tax: 0 },
      ui_mode: 'hosted',
      url: null,
      wallet_options: null,
    },
    overrides,
  );
};

/**
 * A Dispute just opened on the fixtures' Charge (`needs_response`, reason `fraudulent`), for
 * `charge.dispute.created`; pass `{ status: 'won' }` or `'lost'` for `charge.dispute.closed`.
 * Stripe opens disputes itself, so its `metadata` is empty: its events have a `paymentRef` but
 * no `merchantRef`.
 */
const dispute = (overrides: StripeFixtureOverrides = {}): StripeFixtureObject => {
  return fixture(
    {
      id: IDS.dispute,
      object: 'dispute',
      amount: AMOUNT,
      balance_transactions: [],
      charge: IDS.charge,
      created: CREATED + 5 * 86_400,
      currency: CURRENCY,
      enhanced_eligibility_types: [],
      evidence_details: {
        due_by: CREATED + 12 * 86_400,
        enhanced_eligibility: {},
        has_evidence: false,
        past_due: false,
        submission_count: 0,
      },
      is_charge_refundable: false,
      livemode: false,
      metadata: {},
      network_reason_code: '10.4',
      payment_intent: IDS.paymentIntent,
      payment_method_details: {
        card: { brand: 'visa', network_reason_code: '10.4' },
        type: 'card',
      },
      reason: 'fraudulent',
      status: 'needs_response',
    },
    overrides,
  );
};

/**
 * Realistic Stripe API objects, one payment of 25.00 EUR for `order-1042`, ready to be the
 * `object` of `signStripeDelivery()`. They refer to each other: the Charge, Refund, Checkout
 * Session and Dispute name the PaymentIntent `ids.paymentIntent`, every event's `paymentRef`.
 * @example
 * signStripeDelivery({
 *   secret: 'whsec_test_secret',
 *   type: 'payment_intent.payment_failed',
 *   object: stripeFixtures.paymentIntent('requires_payment_method'),
 * })
 */
export const stripeFixtures = {
  /** The fixtures' ids: `paymentIntent`, `charge`, `refund`, `checkoutSession`, `dispute`, … */
  ids: IDS,
  paymentIntent,
  charge,
  refund,
  checkoutSession,
  dispute,
};
