import { X509Certificate, createPrivateKey, createPublicKey, verify } from 'node:crypto';
import * as zlib from 'node:zlib';
import { crc32 } from '../../core/crc32';
import { paypalFixtures } from './paypal.fixtures';
import {
  PAYPAL_TEST_CA_PEM,
  PAYPAL_TEST_CERT_URL,
  PAYPAL_TEST_CERTIFICATE_PEM,
  PAYPAL_TEST_PRIVATE_KEY_PEM,
} from './paypal-test-certificate';
import { signPayPalDelivery } from './paypal.signer';
import { paypalEndpoint } from './paypal.provider';
import { storedEventIds } from '../../spec-support/stored-event-ids';

// NOTE: an independent CRC-32 where this Node has zlib's (20.15+).
const zlibCrc32 = (zlib as unknown as { crc32?: (data: Uint8Array) => number }).crc32;
const independentCrc32 = (body: string): number =>
  zlibCrc32 ? zlibCrc32(Buffer.from(body, 'utf8')) : crc32(body);

/** Checks a signed delivery as PayPal's Java SDK does, with node:crypto and the certificate. */
function verifiesWithCertificate(
  delivery: ReturnType<typeof signPayPalDelivery>,
  webhookId: string,
  certificatePem = PAYPAL_TEST_CERTIFICATE_PEM,
): boolean {
  const h = delivery.headers;
  const message =
    `${h['paypal-transmission-id']}|${h['paypal-transmission-time']}|${webhookId}|` +
    String(independentCrc32(delivery.body));
  return verify(
    'sha256',
    Buffer.from(message, 'utf8'),
    new X509Certificate(certificatePem).publicKey,
    Buffer.from(h['paypal-transmission-sig'], 'base64'),
  );
}

describe('signPayPalDelivery', () => {
  it('ships a test key that belongs to the test certificate, issued by the test CA, valid until 2099', () => {
    const certificate = new X509Certificate(PAYPAL_TEST_CERTIFICATE_PEM);
    const fromKey = createPublicKey(createPrivateKey(PAYPAL_TEST_PRIVATE_KEY_PEM));
    expect(certificate.publicKey.equals(fromKey)).toBe(true);
    expect(certificate.publicKey.asymmetricKeyType).toBe('rsa');
    expect(new Date(certificate.validTo).getUTCFullYear()).toBe(2099);
    expect(certificate.subject).toMatch(/not issued by PayPal/);
    expect(certificate.subject).toMatch(/\nCN=messageverificationcerts\.sandbox\.paypal\.com$/);
    const ca = new X509Certificate(PAYPAL_TEST_CA_PEM);
    expect(ca.ca).toBe(true);
    expect(certificate.checkIssued(ca) && certificate.verify(ca.publicKey)).toBe(true);
    expect(new Date(ca.validTo).getUTCFullYear()).toBe(2099);
    expect(new URL(PAYPAL_TEST_CERT_URL).hostname).toBe('api.sandbox.paypal.com');
  });

  it('makes a signature that verifies with the certificate’s public key over the documented string', () => {
    const delivery = signPayPalDelivery({
      payload: paypalFixtures.captureCompleted(),
      webhookId: 'WH_TEST',
    });
    expect(verifiesWithCertificate(delivery, 'WH_TEST')).toBe(true);
    expect(verifiesWithCertificate(delivery, 'WH_OTHER')).toBe(false);
    expect(verifiesWithCertificate({ ...delivery, body: `${delivery.body} ` }, 'WH_TEST')).toBe(
      false,
    );
  });

  it('sends every header PayPal sends for verification, lower-cased, with a JSON content type', () => {
    const delivery = signPayPalDelivery({
      payload: '{"id":"WH-1"}',
      webhookId: 'WH_TEST',
      transmissionId: 'b2384410-f8d2-11e4-8bf3-77339302725b',
      transmissionTime: '2015-05-12T18:14:14Z',
      certUrl: 'https://api.paypal.com/v1/notifications/certs/CERT-360caa42-fca2a594-d8bb5d0a',
    });
    expect(delivery).toMatchObject({ provider: 'paypal', method: 'POST', body: '{"id":"WH-1"}' });
    expect(Object.keys(delivery.headers).sort()).toEqual([
      'content-type',
      'paypal-auth-algo',
      'paypal-cert-url',
      'paypal-transmission-id',
      'paypal-transmission-sig',
      'paypal-transmission-time',
    ]);
    expect(delivery.headers).toMatchObject({
      'content-type': 'application/json',
      'paypal-auth-algo': 'SHA256withRSA',
      'paypal-transmission-time': '2015-05-12T18:14:14Z',
      'paypal-cert-url':
        'https://api.paypal.com/v1/notifications/certs/CERT-360caa42-fca2a594-d8bb5d0a',
    });
    expect(verifiesWithCertificate(delivery, 'WH_TEST')).toBe(true);
  });

  it('writes a Date transmission time without milliseconds, as PayPal does', () => {
    const delivery = signPayPalDelivery({
      payload: '{}',
      webhookId: 'WH_TEST',
      transmissionTime: new Date('2024-05-12T18:14:14.789Z'),
    });
    expect(delivery.headers['paypal-transmission-time']).toBe('2024-05-12T18:14:14Z');
  });

  it('names the event id a PayPal endpoint stores the event under', async () => {
    const payload = paypalFixtures.captureCompleted({ orderId: 'order-42' });
    const delivery = signPayPalDelivery({ payload, webhookId: 'WH_SIGNER_SPEC' });
    const endpoint = paypalEndpoint({
      name: 'paypal',
      webhookId: 'WH_SIGNER_SPEC',
      certificateResolver: async () => PAYPAL_TEST_CERTIFICATE_PEM,
      trustedRoots: PAYPAL_TEST_CA_PEM,
    });
    expect(await storedEventIds(endpoint, delivery)).toEqual([payload.id]);
    expect(delivery.eventId).toBe(payload.id);
  });
});

describe('paypalFixtures', () => {
  it('builds a completed capture with PayPal’s id formats, decimal amount and links', () => {
    const event = paypalFixtures.captureCompleted({ orderId: 'order-42', amount: 1099 });
    expect(event.id).toMatch(/^WH-[0-9A-Z]{17}-[0-9A-Z]{17}$/);
    expect(event).toMatchObject({
      event_version: '1.0',
      resource_type: 'capture',
      event_type: 'PAYMENT.CAPTURE.COMPLETED',
      summary: 'Payment completed for 10.99 USD',
    });
    expect(event.create_time).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
    const resource = event.resource as {
      id: string;
      seller_receivable_breakdown: Record<string, { value: string }>;
      links: { rel: string }[];
    };
    expect(resource.id).toMatch(/^[0-9A-Z]{17}$/);
    expect(resource).toMatchObject({
      amount: { currency_code: 'USD', value: '10.99' },
      custom_id: 'order-42',
      status: 'COMPLETED',
      final_capture: true,
    });
    const breakdown = resource.seller_receivable_breakdown;
    expect(Number(breakdown.net_amount.value) + Number(breakdown.paypal_fee.value)).toBeCloseTo(
      10.99,
    );
    expect(resource.links.map((link) => link.rel)).toEqual(['self', 'refund', 'up']);
    expect(event.links[0].href).toBe(
      `https://api.paypal.com/v1/notifications/webhooks-events/${event.id}`,
    );
  });

  it('writes zero-decimal currencies without a fraction', () => {
    const event = paypalFixtures.captureCompleted({ amount: 1500, currency: 'jpy' });
    expect(event.resource.amount).toEqual({ currency_code: 'JPY', value: '1500' });
  });

  it('links a refund up to its capture, and a dispute to the disputed capture', () => {
    const refund = paypalFixtures.captureRefunded({ captureId: '2GG279541U471931P' });
    expect(refund.resource.links).toContainEqual({
      href: 'https://api.paypal.com/v2/payments/captures/2GG279541U471931P',
      rel: 'up',
      method: 'GET',
    });
    const dispute = paypalFixtures.disputeCreated({ captureId: '2GG279541U471931P' });
    expect(dispute.resource.dispute_id).toMatch(/^PP-D-\d{5,6}$/);
    expect(dispute.resource.disputed_transactions).toEqual([
      expect.objectContaining({ seller_transaction_id: '2GG279541U471931P' }),
    ]);
    const won = paypalFixtures.disputeResolved({ outcome: 'RESOLVED_SELLER_FAVOUR' });
    expect(won.resource).toMatchObject({
      status: 'RESOLVED',
      dispute_outcome: { outcome_code: 'RESOLVED_SELLER_FAVOUR' },
    });
  });

  it('makes a new event id per call unless one is given', () => {
    expect(paypalFixtures.captureCompleted().id).not.toBe(paypalFixtures.captureCompleted().id);
    expect(paypalFixtures.captureDenied({ eventId: 'WH-1' }).id).toBe('WH-1');
  });
});
