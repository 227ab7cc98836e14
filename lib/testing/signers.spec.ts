import Stripe from 'stripe';
import { Webhook } from 'standardwebhooks';
import { signHmac, signQvard, signStandardWebhook, signStripe } from './signers';

const PAYLOAD = JSON.stringify({ id: 'evt_1', type: 'payment_intent.succeeded' });

function nowSeconds(): number {
  return Math.floor(Date.now() / 1000);
}

describe('testing signers', () => {
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

  it('signStandardWebhook defaults to the current time and verifies with standardwebhooks', () => {
    const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
    const headers = signStandardWebhook({ id: 'msg_1', payload: PAYLOAD, secret });
    expect(Math.abs(Number(headers['webhook-timestamp']) - nowSeconds())).toBeLessThanOrEqual(1);
    expect(new Webhook(secret).verify(PAYLOAD, headers)).toEqual(JSON.parse(PAYLOAD));
  });

  it('signStandardWebhook refuses a secret that is not whsec_ + base64', () => {
    expect(() =>
      signStandardWebhook({ id: 'msg_1', payload: PAYLOAD, secret: 'whsec_%%' }),
    ).toThrow(/padded base64/);
  });

  it('signQvard returns lower-case hex', () => {
    expect(signQvard({ payload: PAYLOAD, secret: 's' })['x-qvard-signature']).toMatch(
      /^[0-9a-f]{64}$/,
    );
  });

  it('signHmac lower-cases header names and stamps the current time when asked', () => {
    const headers = signHmac({
      payload: PAYLOAD,
      secret: 's',
      signatureHeader: 'X-Acme-Signature',
      timestampHeader: 'X-Acme-Timestamp',
    });
    expect(Object.keys(headers).sort()).toEqual(['x-acme-signature', 'x-acme-timestamp']);
    expect(Math.abs(Number(headers['x-acme-timestamp']) - nowSeconds())).toBeLessThanOrEqual(1);
  });

  it('signHmac adds no timestamp header unless one is configured', () => {
    expect(Object.keys(signHmac({ payload: PAYLOAD, secret: 's', timestamp: 5 }))).toEqual([
      'x-signature',
    ]);
  });
});
