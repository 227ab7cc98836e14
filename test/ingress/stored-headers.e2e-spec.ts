import { hmacEndpoint, standardWebhooksEndpoint, stripeEndpoint } from 'nestjs-payment-webhooks';
import { signHmac } from 'nestjs-payment-webhooks/testing';
import { post } from '../support/http';
import { standardWebhooksHeaders } from '../support/standard-webhooks-delivery';
import { WebhookEventEntity } from '../support/internals';
import { signedStripeEvent } from '../support/stripe-event';
import { startTestApp, TestApp } from '../support/test-app';

/**
 * The headers kept with a stored event (`webhook_events.headers`, shown by `events show`): what a
 * later look at the delivery and a replay need, never a signature or a credential, whatever the
 * header is called. Signed by Stripe's SDK, standardwebhooks and the package's HMAC signer.
 */

const STRIPE_SECRET = 'whsec_stored_headers';
const STANDARD_SECRET = `whsec_${Buffer.from('stored-headers-standard').toString('base64')}`;
const HMAC_SECRET = 'hmac-stored-headers';
/** The HMAC endpoint's own signature header: a name no generic rule would take for one. */
const HMAC_SIGNATURE_HEADER = 'x-shop-mac';

/** Credentials and signatures a sender or a proxy in between may add. */
const SECRET_HEADERS: Record<string, string> = {
  'paypal-transmission-sig': 'c2lnbmF0dXJl',
  'x-forwarded-authorization': 'Bearer eyJhbGciOiJIUzI1NiJ9.e30.sig',
  authentication: 'Basic c2hvcDpodW50ZXIy',
  'x-jwt': 'eyJhbGciOiJIUzI1NiJ9.e30.sig',
  'x-private-key': '-----BEGIN PRIVATE KEY-----',
  'x-access-key': 'AKIAIOSFODNN7EXAMPLE',
  'x-hmac': 'deadbeef',
  'x-pwd': 'hunter2',
  authorization: 'Bearer sk_live_123',
  'proxy-authorization': 'Basic cHJveHk6cGFzcw==',
  cookie: 'session=abc',
  'x-api-key': 'key_123',
  'x-amz-security-token': 'FwoGZXIvYXdzEPz',
  'x-client-cert': 'MIIBszCCAVmgAwIBAgIU',
};
/** Worth keeping: what identifies the delivery and where it came from. */
const KEPT_HEADERS: Record<string, string> = {
  'user-agent': 'Stripe/1.0 (+https://stripe.com/docs/webhooks)',
  'x-request-id': 'req-stored-headers-1',
  'x-forwarded-for': '203.0.113.7',
};

let app: TestApp;
let sequence = 0;

beforeAll(async () => {
  app = await startTestApp({
    platform: 'express',
    database: 'sqlite',
    webhooks: {
      endpoints: [
        stripeEndpoint({ name: 'stripe', secret: STRIPE_SECRET }),
        standardWebhooksEndpoint({ name: 'standard', secret: STANDARD_SECRET }),
        hmacEndpoint({
          name: 'hmac',
          secret: HMAC_SECRET,
          signatureHeader: HMAC_SIGNATURE_HEADER,
          eventIdHeader: 'x-shop-delivery',
          trustUnsignedHeaders: true,
        }),
      ],
      dispatch: { enabled: false },
    },
  });
});

afterAll(() => app.close());

async function storedHeaders(endpoint: string, eventId: string): Promise<Record<string, string>> {
  const row = await app.dataSource
    .getRepository(WebhookEventEntity)
    .findOneByOrFail({ endpoint, eventId });
  return row.headers;
}

function expectNoSecrets(headers: Record<string, string>, own: string[]): void {
  for (const name of [...own, ...Object.keys(SECRET_HEADERS)]) {
    expect(headers).not.toHaveProperty(name);
  }
  for (const value of Object.values(SECRET_HEADERS)) {
    expect(Object.values(headers)).not.toContain(value);
  }
}

it('a Stripe event keeps user agent, request id and forwarding, and no credential header', async () => {
  const event = signedStripeEvent(STRIPE_SECRET, { type: 'customer.created', object: {} });
  const response = await post(`${app.url}/webhooks/stripe`, event.body, {
    ...SECRET_HEADERS,
    ...KEPT_HEADERS,
    ...event.headers,
  });
  expect(response.status).toBe(200);
  const headers = await storedHeaders('stripe', event.id);
  expectNoSecrets(headers, ['stripe-signature']);
  expect(headers).toMatchObject({ ...KEPT_HEADERS, 'content-type': 'application/json' });
});

it("an HMAC endpoint's configured signature header is not stored; its id header is", async () => {
  const delivery = `dlv-${sequence++}`;
  const body = JSON.stringify({ type: 'payment.succeeded', data: { orderId: 'order-1' } });
  const response = await post(`${app.url}/webhooks/hmac`, body, {
    ...SECRET_HEADERS,
    ...signHmac({ payload: body, secret: HMAC_SECRET, signatureHeader: HMAC_SIGNATURE_HEADER }),
    'x-shop-delivery': delivery,
  });
  expect(response.status).toBe(200);
  const headers = await storedHeaders('hmac', delivery);
  expectNoSecrets(headers, [HMAC_SIGNATURE_HEADER]);
  expect(headers['x-shop-delivery']).toBe(delivery);
});

it('a Standard Webhooks message keeps its id and timestamp headers, not its signature', async () => {
  const id = `msg_headers_${sequence++}`;
  const body = JSON.stringify({
    type: 'payment.succeeded',
    timestamp: new Date().toISOString(),
    data: {},
  });
  const signed = standardWebhooksHeaders(STANDARD_SECRET, id, body);
  const response = await post(`${app.url}/webhooks/standard`, body, {
    ...SECRET_HEADERS,
    ...signed,
  });
  expect(response.status).toBe(200);
  const headers = await storedHeaders('standard', id);
  expectNoSecrets(headers, ['webhook-signature']);
  expect(headers).toMatchObject({
    'webhook-id': id,
    'webhook-timestamp': signed['webhook-timestamp'],
  });
});
