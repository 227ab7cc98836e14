import Stripe from 'stripe';
import { signStripe } from './stripe.signer';

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
