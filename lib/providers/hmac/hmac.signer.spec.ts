import { createHash, createHmac } from 'node:crypto';
import { notificationsOf } from '../notifications';
import { SignedDelivery } from '../signed-delivery';
import { hmacEndpoint } from './hmac.provider';
import { signHmac, signHmacDelivery } from './hmac.signer';
import { rejection } from '../../spec-support/rejection';
import { storedEventIds } from '../../spec-support/stored-event-ids';

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

describe('signHmacDelivery', () => {
  const OPTIONS = {
    secret: 'acme-shared-secret',
    signatureHeader: 'X-Acme-Signature',
    signaturePrefix: 'sha256=',
    timestampHeader: 'X-Acme-Timestamp',
  };
  const EVENT = { id: 'evt_9', type: 'payment.succeeded', data: { orderId: 'order-1042' } };

  function inbound(delivery: SignedDelivery) {
    return {
      rawBody: Buffer.from(delivery.body, 'utf8'),
      headers: delivery.headers,
      receivedAt: new Date(),
    };
  }

  it('sends an object as JSON with the headers an endpoint of the same options verifies', () => {
    const delivery = signHmacDelivery({ ...OPTIONS, payload: EVENT, kind: 'acme' });
    expect(delivery).toMatchObject({
      provider: 'acme',
      method: 'POST',
      body: JSON.stringify(EVENT),
      headers: { 'content-type': 'application/json' },
    });
    expect(delivery.headers['x-acme-signature']).toBe(
      `sha256=${createHmac('sha256', OPTIONS.secret)
        .update(`${delivery.headers['x-acme-timestamp']}.${delivery.body}`)
        .digest('hex')}`,
    );
    const { provider } = hmacEndpoint({ name: 'acme', kind: 'acme', ...OPTIONS });
    expect(() => provider.verify(inbound(delivery))).not.toThrow();
    expect(notificationsOf(provider.normalize(inbound(delivery)))[0]).toMatchObject({
      eventId: 'evt_9',
      type: 'payment.succeeded',
      merchantRef: 'order-1042',
    });
  });

  it('is refused by an endpoint with another secret, and sends a string body as it is', () => {
    const body = '{"id":"evt_10", "type":"payment.failed"}';
    const delivery = signHmacDelivery({ payload: body, secret: 's' });
    expect(delivery).toMatchObject({ provider: 'hmac', body });
    expect(Object.keys(delivery.headers).sort()).toEqual(['content-type', 'x-signature']);
    const other = hmacEndpoint({ name: 'acme', secret: 'not-s' }).provider;
    expect(rejection(() => other.verify(inbound(delivery)))).toMatchObject({
      reason: 'bad_signature',
    });
    expect(() =>
      hmacEndpoint({ name: 'acme', secret: 's' }).provider.verify(inbound(delivery)),
    ).not.toThrow();
  });

  it('refuses bytes, which a text body cannot carry', () => {
    expect(() => signHmacDelivery({ payload: Buffer.from('{}'), secret: 's' })).toThrow(
      /signHmacDelivery: payload is bytes/,
    );
  });

  it('names the key an endpoint with the same id path stores the event under', async () => {
    const options = { secret: 'hmac-key-secret', eventIdPath: 'event.uid' };
    const delivery = signHmacDelivery({ ...options, payload: { event: { uid: 'u-1' } } });
    const endpoint = hmacEndpoint({ name: 'acme', ...options });
    expect(await storedEventIds(endpoint, delivery)).toEqual(['u-1']);
    expect(delivery.eventId).toBe('u-1');
    const anonymous = signHmacDelivery({ secret: 'hmac-key-secret', payload: '{"type":"ping"}' });
    expect(anonymous.eventId).toBe(
      `sha256:${createHash('sha256').update(anonymous.body).digest('hex')}`,
    );
  });
});
