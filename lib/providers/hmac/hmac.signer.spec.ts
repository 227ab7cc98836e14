import { signHmac } from './hmac.signer';

const PAYLOAD = JSON.stringify({ id: 'evt_1', type: 'payment_intent.succeeded' });

function nowSeconds(): number {
  return Math.floor(Date.now() / 1000);
}

describe('signHmac', () => {
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
