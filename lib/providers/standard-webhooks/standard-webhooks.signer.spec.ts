import { Webhook } from 'standardwebhooks';
import { signStandardWebhook } from './standard-webhooks.signer';

const PAYLOAD = JSON.stringify({ id: 'evt_1', type: 'payment_intent.succeeded' });

function nowSeconds(): number {
  return Math.floor(Date.now() / 1000);
}

describe('signStandardWebhook', () => {
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
});
