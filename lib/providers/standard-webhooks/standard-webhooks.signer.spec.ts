import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { notificationsOf } from '../notifications';
import { SignedDelivery } from '../signed-delivery';
import { standardWebhooksEndpoint } from './standard-webhooks.provider';
import {
  generateStandardWebhooksKeyPair,
  signStandardWebhook,
  signStandardWebhookDelivery,
} from './standard-webhooks.signer';
import { storedEventIds } from '../../spec-support/stored-event-ids';

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

describe('signStandardWebhookDelivery', () => {
  const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
  const MESSAGE = { type: 'payment.succeeded', data: { id: 'pay_1', orderId: 'order-1042' } };

  function inbound(delivery: SignedDelivery) {
    return {
      rawBody: Buffer.from(delivery.body, 'utf8'),
      headers: delivery.headers,
      receivedAt: new Date(),
    };
  }

  it('sends the message as JSON with headers that standardwebhooks and an endpoint verify', () => {
    const delivery = signStandardWebhookDelivery({ payload: MESSAGE, secret: SECRET, id: 'msg_7' });
    expect(delivery).toMatchObject({
      provider: 'standard',
      method: 'POST',
      eventId: 'msg_7',
      body: JSON.stringify(MESSAGE),
      headers: { 'content-type': 'application/json', 'webhook-id': 'msg_7' },
    });
    expect(new Webhook(SECRET).verify(delivery.body, delivery.headers)).toEqual(MESSAGE);
    const { provider } = standardWebhooksEndpoint({ name: 'acme', secret: SECRET });
    expect(() => provider.verify(inbound(delivery))).not.toThrow();
    expect(notificationsOf(provider.normalize(inbound(delivery)))[0]).toMatchObject({
      eventId: 'msg_7',
      type: 'payment.succeeded',
    });
  });

  it('is refused by standardwebhooks under another secret', () => {
    const delivery = signStandardWebhookDelivery({ payload: MESSAGE, secret: SECRET });
    const other = `whsec_${Buffer.from('another secret of 24 byte').toString('base64')}`;
    expect(() => new Webhook(other).verify(delivery.body, delivery.headers)).toThrow(
      WebhookVerificationError,
    );
  });

  it('gives each call a fresh msg_ id unless one is given', () => {
    const [first, second] = [1, 2].map(
      () => signStandardWebhookDelivery({ payload: '{}', secret: SECRET }).headers['webhook-id'],
    );
    expect(first).toMatch(/^msg_[0-9a-f]{32}$/);
    expect(second).not.toBe(first);
  });

  it('signs v1a with a private key and writes svix-* headers when asked', () => {
    const { privateKey, publicKey } = generateStandardWebhooksKeyPair();
    const delivery = signStandardWebhookDelivery({
      payload: MESSAGE,
      privateKey,
      headerPrefix: 'svix',
      kind: 'acme',
    });
    expect(delivery.provider).toBe('acme');
    expect(Object.keys(delivery.headers).sort()).toEqual([
      'content-type',
      'svix-id',
      'svix-signature',
      'svix-timestamp',
    ]);
    const { provider } = standardWebhooksEndpoint({ name: 'acme', publicKey });
    expect(() => provider.verify(inbound(delivery))).not.toThrow();
  });

  it('names the message id an endpoint stores the message under, signed v1 or v1a', async () => {
    const keys = generateStandardWebhooksKeyPair();
    const v1 = signStandardWebhookDelivery({ payload: MESSAGE, secret: SECRET, id: 'msg_v1' });
    const v1a = signStandardWebhookDelivery({
      payload: MESSAGE,
      privateKey: keys.privateKey,
      id: 'msg_v1a',
    });
    const bySecret = standardWebhooksEndpoint({ name: 'acme', secret: SECRET });
    const byKey = standardWebhooksEndpoint({ name: 'acme', publicKey: keys.publicKey });
    expect(await storedEventIds(bySecret, v1)).toEqual(['msg_v1']);
    expect(await storedEventIds(byKey, v1a)).toEqual(['msg_v1a']);
    expect([v1.eventId, v1a.eventId]).toEqual(['msg_v1', 'msg_v1a']);
  });
});
