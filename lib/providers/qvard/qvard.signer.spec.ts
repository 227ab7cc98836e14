import { createHmac } from 'node:crypto';
import { notificationsOf } from '../notifications';
import { qvardEndpoint } from './qvard.provider';
import { signQvard, signQvardDelivery } from './qvard.signer';
import { rejection } from '../../spec-support/rejection';

const PAYLOAD = JSON.stringify({ id: 'evt_1', type: 'payment_intent.succeeded' });

describe('signQvard', () => {
  it('signQvard returns lower-case hex', () => {
    expect(signQvard({ payload: PAYLOAD, secret: 's' })['x-qvard-signature']).toMatch(
      /^[0-9a-f]{64}$/,
    );
  });
});

describe('signQvardDelivery', () => {
  const NOTIFICATION = { id: 'order-1042', status: 'completed' };

  function inbound(body: string, headers: Record<string, string>) {
    return { rawBody: Buffer.from(body, 'utf8'), headers, receivedAt: new Date() };
  }

  it('posts the notification as JSON, signed so that a Qvard endpoint accepts it', () => {
    const delivery = signQvardDelivery({ payload: NOTIFICATION, secret: 'qv_secret' });
    expect(delivery).toEqual({
      provider: 'qvard',
      method: 'POST',
      body: JSON.stringify(NOTIFICATION),
      headers: {
        'content-type': 'application/json',
        'x-qvard-signature': createHmac('sha256', 'qv_secret')
          .update(JSON.stringify(NOTIFICATION))
          .digest('hex'),
      },
      eventId: 'order-1042:completed',
    });
    const { provider } = qvardEndpoint({ name: 'qvard', secret: 'qv_secret' });
    const request = inbound(delivery.body, delivery.headers);
    expect(() => provider.verify(request)).not.toThrow();
    expect(notificationsOf(provider.normalize(request))[0]).toMatchObject({
      eventId: 'order-1042:completed',
      type: 'payment.succeeded',
      merchantRef: 'order-1042',
    });
  });

  it('is refused by a Qvard endpoint with another secret', () => {
    const delivery = signQvardDelivery({ payload: NOTIFICATION, secret: 'qv_secret' });
    const { provider } = qvardEndpoint({ name: 'qvard', secret: 'qv_other' });
    expect(
      rejection(() => provider.verify(inbound(delivery.body, delivery.headers))),
    ).toMatchObject({ reason: 'bad_signature' });
  });
});
