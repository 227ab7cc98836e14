'use strict';
/**
 * Stripe-format deliveries for the load generators: a `payment_intent.payment_failed` event of
 * about 1 KB, signed the way Stripe signs (`t=<unix>,v1=<hex HMAC-SHA256 of "<t>.<body>">`).
 * Every event id is unique within a run tag, so rows can be counted per scenario.
 */
const { createHmac } = require('node:crypto');

/** The signing secret every target is started with (a development value, not a real secret). */
const BENCH_STRIPE_SECRET = 'whsec_benchmark_only_development_secret';

/** Body size the events are padded to, in bytes (the figure the reference measurements use). */
const BODY_BYTES = 1024;

/** The endpoint path of the Stripe endpoint on every target. */
const STRIPE_PATH = '/webhooks/stripe';

/**
 * The event id of delivery number `n` of a run tag.
 * @param {string} tag short scenario tag, letters and digits
 * @param {number} n sequence number
 */
function eventId(tag, n) {
  return `evt_${tag}_${n.toString(36).padStart(8, '0')}`;
}

/**
 * The JSON body of one event, padded with a description to about `BODY_BYTES`.
 * @param {string} id event id
 * @param {number} created Unix seconds
 */
function eventBody(id, created) {
  const suffix = id.slice(4);
  const event = {
    id,
    object: 'event',
    api_version: '2024-06-20',
    created,
    type: 'payment_intent.payment_failed',
    livemode: false,
    pending_webhooks: 1,
    request: { id: `req_${suffix}`, idempotency_key: `ik_${suffix}` },
    data: {
      object: {
        id: `pi_${suffix}`,
        object: 'payment_intent',
        amount: 2000 + (created % 7919),
        amount_received: 0,
        currency: 'usd',
        status: 'requires_payment_method',
        customer: `cus_${suffix}`,
        capture_method: 'automatic',
        confirmation_method: 'automatic',
        created,
        livemode: false,
        metadata: { orderId: `order_${suffix}` },
        last_payment_error: {
          code: 'card_declined',
          decline_code: 'generic_decline',
          doc_url: 'https://stripe.com/docs/error-codes/card-declined',
          message: 'Your card was declined.',
          type: 'card_error',
        },
        payment_method_types: ['card'],
        description: '',
      },
    },
  };
  const bare = JSON.stringify(event).length;
  event.data.object.description = 'x'.repeat(Math.max(0, BODY_BYTES - bare));
  return JSON.stringify(event);
}

/**
 * The Stripe-Signature header for `body` at `timestamp`.
 * @param {string} body exact bytes sent
 * @param {number} timestamp Unix seconds
 * @param {string} [secret]
 */
function stripeSignature(body, timestamp, secret = BENCH_STRIPE_SECRET) {
  const v1 = createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex');
  return `t=${timestamp},v1=${v1}`;
}

/**
 * A signed delivery: id, signature header and body.
 * @param {string} tag
 * @param {number} n
 * @param {number} [now] Unix seconds used both as the event's `created` and the signature time
 */
function signedDelivery(tag, n, now = Math.floor(Date.now() / 1000)) {
  const id = eventId(tag, n);
  const body = eventBody(id, now);
  return { id, signature: stripeSignature(body, now), body };
}

/**
 * A small deterministic PRNG (mulberry32), so a re-delivery mix is the same on every run.
 * @param {number} seed
 * @returns {() => number} uniform in [0, 1)
 */
function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * The delivery sequence of a run: `count` lines, of which a share `duplicateRatio` are exact
 * re-deliveries (same bytes, same signature) of an event sent up to `window` lines earlier,
 * the way a sender retries an event whose answer it did not see.
 * @param {{ tag: string, count: number, duplicateRatio?: number, window?: number, seed?: number }} options
 * @returns {{ lines: { id: string, signature: string, body: string }[], redeliveries: number }}
 */
function deliverySequence({ tag, count, duplicateRatio = 0, window = 1000, seed = 1 }) {
  const random = prng(seed);
  const now = Math.floor(Date.now() / 1000);
  const lines = [];
  let fresh = 0;
  let redeliveries = 0;
  for (let i = 0; i < count; i += 1) {
    if (i > 0 && random() < duplicateRatio) {
      const from = Math.max(0, i - window);
      lines.push(lines[from + Math.floor(random() * (i - from))]);
      redeliveries += 1;
    } else {
      lines.push(signedDelivery(tag, fresh, now));
      fresh += 1;
    }
  }
  return { lines, redeliveries };
}

module.exports = {
  BENCH_STRIPE_SECRET,
  BODY_BYTES,
  STRIPE_PATH,
  eventId,
  eventBody,
  stripeSignature,
  signedDelivery,
  deliverySequence,
};
