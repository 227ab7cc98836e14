import Stripe from 'stripe';
import { signStripe, signStripeDelivery, signStripeEventNotification } from './stripe.signer';
import { stripeFixtures } from './stripe.fixtures';
import { stripeEndpoint } from './stripe.provider';
import { storedEventIds } from '../../spec-support/stored-event-ids';

const PAYLOAD = JSON.stringify({ id: 'evt_1', type: 'payment_intent.succeeded' });

function nowSeconds(): number {
  return Math.floor(Date.now() / 1000);
}

describe('signStripe', () => {
  it('signStripe defaults to the current time and verifies with the Stripe SDK', () => {
    const before = nowSeconds();
    const header = signStripe({ payload: PAYLOAD, secret: 'whsec_abc' })['stripe-signature'];
    const timestamp = Number(/^t=(\d+),v1=[0-9a-f]{64}$/.exec(header)?.[1]);
    expect(timestamp).toBeGreaterThanOrEqual(before);
    expect(timestamp).toBeLessThanOrEqual(nowSeconds());
    expect(Stripe.webhooks.constructEvent(PAYLOAD, header, 'whsec_abc')).toEqual(
      JSON.parse(PAYLOAD),
    );
  });

  it('signStripe keeps an explicit timestamp of 0 (the SDK would turn it into now)', () => {
    expect(
      signStripe({ payload: PAYLOAD, secret: 'whsec_abc', timestamp: 0 })['stripe-signature'],
    ).toMatch(/^t=0,v1=/);
  });
});

describe('signStripeDelivery', () => {
  const SECRET = 'whsec_abc';
  const OBJECT = { id: 'pi_1', object: 'payment_intent', amount: 2500, currency: 'eur' };

  it('signs a whole event that the Stripe SDK accepts and parses back to the event built', () => {
    const delivery = signStripeDelivery({
      secret: SECRET,
      type: 'payment_intent.succeeded',
      object: OBJECT,
      id: 'evt_given',
      created: 1_764_660_000,
      livemode: true,
      apiVersion: '2025-03-31.basil',
    });
    expect(delivery).toMatchObject({
      provider: 'stripe',
      method: 'POST',
      eventId: 'evt_given',
      headers: { 'content-type': 'application/json' },
    });
    const event = Stripe.webhooks.constructEvent(
      delivery.body,
      delivery.headers['stripe-signature'],
      SECRET,
    );
    expect(event).toEqual({
      id: 'evt_given',
      object: 'event',
      api_version: '2025-03-31.basil',
      created: 1_764_660_000,
      data: { object: OBJECT },
      livemode: true,
      pending_webhooks: 1,
      request: {
        id: expect.stringMatching(/^req_[0-9A-Za-z]{14}$/),
        idempotency_key: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-/),
      },
      type: 'payment_intent.succeeded',
    });
    expect(Object.keys(JSON.parse(delivery.body))).toEqual(Object.keys(event));
  });

  it('defaults to a test-mode event of now, in the API version the Stripe SDK pins', () => {
    const before = nowSeconds();
    const delivery = signStripeDelivery({ secret: SECRET, type: 'charge.succeeded', object: {} });
    const event = JSON.parse(delivery.body);
    expect(event).toMatchObject({ livemode: false, api_version: Stripe.API_VERSION });
    expect(event.id).toMatch(/^evt_[0-9A-Za-z]{24}$/);
    expect(event.created).toBeGreaterThanOrEqual(before);
    expect(event.created).toBeLessThanOrEqual(nowSeconds());
    expect(event.data).toEqual({ object: {} });
  });

  it('is refused by the Stripe SDK under another secret or once the body changes', () => {
    const delivery = signStripeDelivery({ secret: SECRET, type: 'charge.succeeded', object: {} });
    const header = delivery.headers['stripe-signature'];
    expect(() => Stripe.webhooks.constructEvent(delivery.body, header, 'whsec_other')).toThrow(
      Stripe.errors.StripeSignatureVerificationError,
    );
    expect(() =>
      Stripe.webhooks.constructEvent(delivery.body.replace('false', 'true '), header, SECRET),
    ).toThrow(Stripe.errors.StripeSignatureVerificationError);
  });

  it('gives each call a fresh event id and request, and signs the timestamp given', () => {
    const options = {
      secret: SECRET,
      type: 'charge.succeeded',
      object: {},
      timestamp: 1_700_000_000,
    };
    const [first, second] = [signStripeDelivery(options), signStripeDelivery(options)];
    expect(JSON.parse(first.body).id).not.toBe(JSON.parse(second.body).id);
    expect([first.eventId, second.eventId]).toEqual([
      JSON.parse(first.body).id,
      JSON.parse(second.body).id,
    ]);
    expect(JSON.parse(first.body).request.id).not.toBe(JSON.parse(second.body).request.id);
    expect(first.headers['stripe-signature']).toMatch(/^t=1700000000,v1=[0-9a-f]{64}$/);
    expect(() =>
      Stripe.webhooks.constructEvent(first.body, first.headers['stripe-signature'], SECRET),
    ).toThrow(/Timestamp outside the tolerance zone/);
  });

  it('puts previousAttributes in data.previous_attributes, after the object', () => {
    const delivery = signStripeDelivery({
      secret: SECRET,
      type: 'refund.updated',
      object: { id: 're_1', object: 'refund', status: 'succeeded' },
      previousAttributes: { status: 'pending' },
    });
    expect(JSON.parse(delivery.body).data).toEqual({
      object: { id: 're_1', object: 'refund', status: 'succeeded' },
      previous_attributes: { status: 'pending' },
    });
  });

  it('names the key a Stripe endpoint stores the event under: a refund outcome by its refund', async () => {
    const endpoint = stripeEndpoint({ name: 'stripe', secret: SECRET });
    const paid = signStripeDelivery({
      secret: SECRET,
      type: 'payment_intent.succeeded',
      object: OBJECT,
    });
    const refunded = signStripeDelivery({
      secret: SECRET,
      type: 'refund.updated',
      object: stripeFixtures.refund(),
      previousAttributes: { status: 'pending' },
    });
    const thin = signStripeEventNotification({
      secret: SECRET,
      type: 'v1.payment_intent.succeeded',
      relatedObject: { id: 'pi_1', type: 'payment_intent' },
    });
    expect(await storedEventIds(endpoint, paid)).toEqual([
      (JSON.parse(paid.body) as Stripe.Event).id,
    ]);
    expect(await storedEventIds(endpoint, refunded)).toEqual([
      `${stripeFixtures.ids.refund}:succeeded`,
    ]);
    expect(await storedEventIds(endpoint, thin)).toEqual([thin.eventId]);
    expect(paid.eventId).toBe((JSON.parse(paid.body) as Stripe.Event).id);
    expect(refunded.eventId).toBe(`${stripeFixtures.ids.refund}:succeeded`);
  });
});
