import { createHash } from 'node:crypto';
import {
  signQvard,
  signStripe,
  signTBankDelivery,
  tbankFixtures,
} from 'nestjs-payment-webhooks/testing';
import { between, pick, Random } from './random';
import { ProviderKind } from './senders';

/** Secrets the shop is started with; the simulator signs with them (or, on purpose, without). */
export interface ProviderSecrets {
  readonly STRIPE_WEBHOOK_SECRET: string;
  readonly QVARD_SECRET_KEY: string;
  readonly TBANK_PASSWORD: string;
}

/** An order created through the shop's `POST /orders`. */
export interface ShopOrder {
  readonly id: string;
  readonly amount: number;
  readonly currency: string;
}

/**
 * What happens to one payment, in the order the provider delivers it:
 * - `paid`: one success event;
 * - `two-events`: two distinct success events for one payment (Stripe's intent and checkout
 *   events, T-Bank's AUTHORIZED then CONFIRMED);
 * - `twin-events`: the same change sent as two event objects with different ids (Stripe);
 * - `canceled-after-paid`: success, then a late cancel that must not undo it;
 * - `refund-before-success`: the refund notification overtakes the success;
 * - `canceled`: canceled, never paid;
 * - `failed`: declined (T-Bank `REJECTED`), the order stays pending.
 */
export type PaymentStory =
  | 'paid'
  | 'two-events'
  | 'twin-events'
  | 'canceled-after-paid'
  | 'refund-before-success'
  | 'canceled'
  | 'failed';

/** How a delivery relates to the event it carries. */
export type DeliveryCopy = 'original' | 'duplicate' | 'concurrent';

/** Ways a delivery can be invalid; none may ever be stored or answered with 2xx. */
export type InvalidKind =
  | 'bad-signature'
  | 'tampered'
  | 'missing-signature'
  | 'stale-timestamp'
  | 'malformed-signature'
  | 'signed-garbage';

/** One body and header set, as one attempt sends it. */
export interface WireRequest {
  readonly body: string;
  readonly headers: Record<string, string>;
}

/** A webhook delivery the simulator must get acknowledged (or, when invalid, refused). */
export interface Message {
  readonly id: number;
  readonly provider: ProviderKind;
  readonly orderId: string;
  /**
   * The inbox's dedup key for the event (what the shop stores as `event_id`): Stripe's `evt_…`,
   * Qvard's `${id}:${status}`, T-Bank's `${PaymentId}:${Status}`. For an invalid delivery, the
   * key it would have had.
   */
  readonly eventId: string;
  /** The normalized effect on the order: `success`, `cancel`, `refund` or `other`. */
  readonly effect: 'success' | 'cancel' | 'refund' | 'other';
  /** e.g. `stripe:payment_intent.succeeded` or `invalid:tampered`. */
  readonly label: string;
  readonly valid: boolean;
  readonly copy: DeliveryCopy;
  /** Real ms after the start of sending when the first attempt goes out. */
  readonly at: number;
  /** SHA-256 (hex) of the body as sent. */
  readonly bodySha256: string;
  /** The request of one attempt; Stripe signs every attempt afresh, as it does. */
  request(): WireRequest;
}

/** A payment's plan: the order, its provider, its story, its events. */
export interface PaymentPlan {
  readonly order: ShopOrder;
  readonly provider: ProviderKind;
  readonly story: PaymentStory;
}

/** What the workload mixes in, per payment. */
export interface WorkloadMix {
  /** Chance that an event is delivered once more, independently, a little later. */
  readonly duplicateRate: number;
  /** Chance that an event is delivered four times at the same instant. */
  readonly concurrentRate: number;
  /** Invalid deliveries per payment (0.1 = one per ten payments). */
  readonly invalidRate: number;
}

/** The events of one payment before they are turned into deliveries. */
interface PlannedEvent {
  readonly eventId: string;
  readonly effect: Message['effect'];
  readonly label: string;
  readonly body: string;
  readonly request: () => WireRequest;
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

const STORIES: Record<ProviderKind, readonly (readonly [PaymentStory, number])[]> = {
  stripe: [
    ['paid', 45],
    ['two-events', 15],
    ['twin-events', 5],
    ['canceled-after-paid', 10],
    ['refund-before-success', 15],
    ['canceled', 10],
  ],
  qvard: [['paid', 1]],
  tbank: [
    ['paid', 40],
    ['two-events', 20],
    ['canceled-after-paid', 15],
    ['refund-before-success', 15],
    ['failed', 10],
  ],
};

/** Which provider a payment goes through. */
export function pickProvider(random: Random): ProviderKind {
  return pick(random, [
    ['stripe', 40],
    ['qvard', 30],
    ['tbank', 30],
  ]);
}

/** The currency an order is created in for a provider (T-Bank settles in roubles). */
export function currencyFor(provider: ProviderKind): string {
  return provider === 'tbank' ? 'RUB' : 'USD';
}

/** Builds every delivery of a run: the payments' events, their copies, and invalid ones. */
export class WorkloadBuilder {
  private sequence = 0;
  private forged = 0;
  private readonly createdBase = Math.floor(Date.now() / 1000);

  constructor(
    private readonly secrets: ProviderSecrets,
    private readonly random: Random,
  ) {}

  /** A story for a payment through `provider`. */
  story(provider: ProviderKind): PaymentStory {
    return pick(this.random, STORIES[provider]);
  }

  /**
   * The deliveries of every payment, spread over `windowMs`, with duplicates, concurrent copies
   * and invalid deliveries mixed in; sorted by send time.
   */
  build(payments: readonly PaymentPlan[], mix: WorkloadMix, windowMs: number): Message[] {
    const messages: Message[] = [];
    for (const payment of payments) {
      let at = Math.floor(this.random() * windowMs);
      for (const event of this.events(payment)) {
        messages.push(this.message(payment, event, 'original', at));
        if (this.random() < mix.concurrentRate) {
          for (let copy = 0; copy < 3; copy += 1) {
            messages.push(this.message(payment, event, 'concurrent', at));
          }
        }
        if (this.random() < mix.duplicateRate) {
          messages.push(
            this.message(payment, event, 'duplicate', at + between(this.random, 500, 6000)),
          );
        }
        at += between(this.random, 20, 400);
      }
    }
    const invalid = Math.round(payments.length * mix.invalidRate);
    for (let i = 0; i < invalid; i += 1) {
      messages.push(this.invalid(Math.floor(this.random() * windowMs)));
    }
    return messages.sort((a, b) => a.at - b.at);
  }

  private message(
    payment: PaymentPlan,
    event: PlannedEvent,
    copy: DeliveryCopy,
    at: number,
  ): Message {
    return {
      id: this.sequence++,
      provider: payment.provider,
      orderId: payment.order.id,
      eventId: event.eventId,
      effect: event.effect,
      label: event.label,
      valid: true,
      copy,
      at,
      bodySha256: sha256(event.body),
      request: event.request,
    };
  }

  private events(payment: PaymentPlan): PlannedEvent[] {
    switch (payment.provider) {
      case 'stripe':
        return this.stripeEvents(payment);
      case 'qvard':
        return [this.qvardEvent(payment.order.id, 'completed')];
      case 'tbank':
        return this.tbankEvents(payment);
    }
  }

  private stripeEvents({ order, story }: PaymentPlan): PlannedEvent[] {
    const intent = `pi_${order.id.replace(/-/g, '').slice(0, 24)}`;
    const succeeded = this.stripeEvent(order, 'payment_intent.succeeded', intent, 1);
    switch (story) {
      case 'paid':
        return [succeeded];
      case 'two-events':
        return [succeeded, this.stripeEvent(order, 'checkout.session.completed', intent, 2)];
      case 'twin-events':
        return [succeeded, this.stripeEvent(order, 'payment_intent.succeeded', intent, 1)];
      case 'canceled-after-paid':
        return [succeeded, this.stripeEvent(order, 'payment_intent.canceled', intent, 3)];
      case 'refund-before-success':
        return [this.stripeEvent(order, 'refund.created', intent, 4), succeeded];
      case 'canceled':
        return [this.stripeEvent(order, 'payment_intent.canceled', intent, 1)];
      case 'failed':
        return [this.stripeEvent(order, 'payment_intent.payment_failed', intent, 1)];
    }
  }

  private stripeEvent(
    order: ShopOrder,
    type: string,
    intent: string,
    secondsLater: number,
    secret = this.secrets.STRIPE_WEBHOOK_SECRET,
  ): PlannedEvent {
    const eventId = `evt_${order.id.replace(/-/g, '').slice(0, 20)}_${this.sequence++}`;
    const amount = order.amount;
    const currency = order.currency.toLowerCase();
    const metadata = { orderId: order.id };
    const objects: Record<string, Record<string, unknown>> = {
      'checkout.session.completed': {
        id: `cs_${intent.slice(3)}`,
        object: 'checkout.session',
        payment_intent: intent,
        payment_status: 'paid',
        status: 'complete',
        amount_total: amount,
        currency,
        metadata,
      },
      'refund.created': {
        id: `re_${intent.slice(3)}`,
        object: 'refund',
        charge: `ch_${intent.slice(3)}`,
        payment_intent: intent,
        amount,
        status: 'succeeded',
        currency,
        metadata,
      },
    };
    const object = objects[type] ?? {
      id: intent,
      object: 'payment_intent',
      amount,
      currency,
      status: type === 'payment_intent.canceled' ? 'canceled' : 'succeeded',
      metadata,
    };
    const body = JSON.stringify({
      id: eventId,
      object: 'event',
      api_version: '2024-06-20',
      created: this.createdBase + secondsLater,
      livemode: false,
      pending_webhooks: 1,
      type,
      data: { object },
    });
    return {
      // NOTE: a refund's outcome is stored under the refund's id and status, not the event id.
      eventId: type === 'refund.created' ? `${String(object.id)}:succeeded` : eventId,
      effect: effectOf(type),
      label: `stripe:${type}`,
      body,
      request: () => ({
        body,
        headers: { 'content-type': 'application/json', ...signStripe({ payload: body, secret }) },
      }),
    };
  }

  private qvardEvent(
    orderId: string,
    status: string,
    secret = this.secrets.QVARD_SECRET_KEY,
  ): PlannedEvent {
    const body = JSON.stringify({ id: orderId, status });
    const headers = { 'content-type': 'application/json', ...signQvard({ payload: body, secret }) };
    return {
      eventId: `${orderId}:${status}`,
      effect: status === 'completed' ? 'success' : 'other',
      label: `qvard:${status}`,
      body,
      request: () => ({ body, headers }),
    };
  }

  private tbankEvents({ order, story }: PaymentPlan): PlannedEvent[] {
    const event = (status: string) => this.tbankEvent(order, status);
    switch (story) {
      case 'two-events':
        return [event('AUTHORIZED'), event('CONFIRMED')];
      case 'canceled-after-paid':
        return [event('CONFIRMED'), event('REVERSED')];
      case 'refund-before-success':
        return [event('REFUNDED'), event('CONFIRMED')];
      case 'failed':
        return [event('REJECTED')];
      case 'canceled':
        return [event('REVERSED')];
      default:
        return [event('CONFIRMED')];
    }
  }

  private tbankEvent(
    order: ShopOrder,
    status: string,
    password = this.secrets.TBANK_PASSWORD,
    paymentId?: number,
  ): PlannedEvent {
    const fields = tbankFixtures.notification(status, {
      orderId: order.id,
      amount: order.amount,
      paymentId,
    });
    const delivery = signTBankDelivery({ payload: fields, password });
    const types: Record<string, Message['effect']> = {
      CONFIRMED: 'success',
      REVERSED: 'cancel',
      REFUNDED: 'refund',
    };
    return {
      eventId: `${fields.PaymentId}:${status}`,
      effect: types[status] ?? 'other',
      label: `tbank:${status}`,
      body: delivery.body,
      request: () => ({ body: delivery.body, headers: { ...delivery.headers } }),
    };
  }

  /** A delivery no provider signed correctly, for an order that does not exist. */
  private invalid(at: number): Message {
    this.forged += 1;
    const order: ShopOrder = {
      id: `forged-${this.forged}-${Math.floor(this.random() * 1e9)}`,
      amount: between(this.random, 100, 100_000),
      currency: 'USD',
    };
    const provider = pickProvider(this.random);
    const kinds: Record<ProviderKind, InvalidKind[]> = {
      stripe: [
        'bad-signature',
        'tampered',
        'missing-signature',
        'stale-timestamp',
        'malformed-signature',
      ],
      qvard: [
        'bad-signature',
        'tampered',
        'missing-signature',
        'malformed-signature',
        'signed-garbage',
      ],
      tbank: ['bad-signature', 'tampered', 'missing-signature', 'malformed-signature'],
    };
    const kind = kinds[provider][Math.floor(this.random() * kinds[provider].length)];
    const { eventId, request } = this.forge(provider, kind, order);
    const sample = request();
    return {
      id: this.sequence++,
      provider,
      orderId: order.id,
      eventId,
      effect: 'other',
      label: `invalid:${provider}:${kind}`,
      valid: false,
      copy: 'original',
      at,
      bodySha256: sha256(sample.body),
      request,
    };
  }

  private forge(
    provider: ProviderKind,
    kind: InvalidKind,
    order: ShopOrder,
  ): { eventId: string; request: () => WireRequest } {
    const wrong = 'whsec_not_the_endpoint_secret';
    const genuine =
      provider === 'stripe'
        ? this.stripeEvent(order, 'payment_intent.succeeded', `pi_forged${this.forged}`, 1)
        : provider === 'qvard'
          ? this.qvardEvent(order.id, 'completed')
          : this.tbankEvent(
              order,
              'CONFIRMED',
              this.secrets.TBANK_PASSWORD,
              9_000_000_000 + this.forged,
            );
    const fixed = (request: WireRequest) => ({ eventId: genuine.eventId, request: () => request });
    const signed = genuine.request();
    switch (kind) {
      case 'bad-signature': {
        const forged =
          provider === 'stripe'
            ? this.stripeEvent(
                order,
                'payment_intent.succeeded',
                `pi_forged${this.forged}`,
                1,
                wrong,
              )
            : provider === 'qvard'
              ? this.qvardEvent(order.id, 'completed', wrong)
              : this.tbankEvent(order, 'CONFIRMED', wrong, 9_000_000_000 + this.forged);
        return { eventId: forged.eventId, request: forged.request };
      }
      case 'tampered': {
        // NOTE: signed for one amount, then changed: the classic man-in-the-middle edit. Qvard
        // carries no amount; one added space changes its bytes but not its meaning.
        const edits: Record<ProviderKind, [string, string]> = {
          stripe: [`"amount":${order.amount}`, `"amount":${order.amount + 1}`],
          tbank: [`"Amount":${order.amount}`, `"Amount":${order.amount + 1}`],
          qvard: ['{"id":', '{ "id":'],
        };
        const [from, to] = edits[provider];
        return fixed({ body: signed.body.replace(from, to), headers: signed.headers });
      }
      case 'missing-signature': {
        if (provider === 'tbank') {
          const { Token: _token, ...rest } = JSON.parse(signed.body) as Record<string, unknown>;
          return fixed({ body: JSON.stringify(rest), headers: signed.headers });
        }
        const headers = { 'content-type': 'application/json' };
        return fixed({ body: signed.body, headers });
      }
      case 'stale-timestamp': {
        const timestamp = Math.floor(Date.now() / 1000) - 600;
        const secret = this.secrets.STRIPE_WEBHOOK_SECRET;
        return {
          eventId: genuine.eventId,
          request: () => ({
            body: signed.body,
            headers: {
              'content-type': 'application/json',
              ...signStripe({ payload: signed.body, secret, timestamp }),
            },
          }),
        };
      }
      case 'malformed-signature': {
        if (provider === 'tbank') {
          const body = JSON.parse(signed.body) as Record<string, unknown>;
          return fixed({
            body: JSON.stringify({ ...body, Token: 'not-a-token' }),
            headers: signed.headers,
          });
        }
        const name = provider === 'stripe' ? 'stripe-signature' : 'x-qvard-signature';
        const value = provider === 'stripe' ? 't=yesterday,v1=zz' : 'sha256=?';
        return fixed({
          body: signed.body,
          headers: { 'content-type': 'application/json', [name]: value },
        });
      }
      case 'signed-garbage': {
        // NOTE: a correct signature over bytes that are not a notification: verified, then refused.
        const body = `not json ${order.id}`;
        return fixed({
          body,
          headers: {
            'content-type': 'application/json',
            ...signQvard({ payload: body, secret: this.secrets.QVARD_SECRET_KEY }),
          },
        });
      }
    }
  }
}

function effectOf(stripeType: string): Message['effect'] {
  if (stripeType === 'payment_intent.succeeded' || stripeType === 'checkout.session.completed') {
    return 'success';
  }
  if (stripeType === 'refund.created') {
    return 'refund';
  }
  return stripeType === 'payment_intent.canceled' ? 'cancel' : 'other';
}
