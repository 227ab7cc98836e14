import { signQvard } from './qvard.signer';

const PAYLOAD = JSON.stringify({ id: 'evt_1', type: 'payment_intent.succeeded' });

describe('signQvard', () => {
  it('signQvard returns lower-case hex', () => {
    expect(signQvard({ payload: PAYLOAD, secret: 's' })['x-qvard-signature']).toMatch(
      /^[0-9a-f]{64}$/,
    );
  });
});
