import { createPrivateKey, randomUUID, sign } from 'node:crypto';
import * as zlib from 'node:zlib';
import { crc32 } from '../../core/crc32';
import { WebhookConfigurationError } from '../../core/webhook-errors';
import { paypalFixtures } from './paypal.fixtures';
import {
  PAYPAL_TEST_CA_PEM,
  PAYPAL_TEST_CERT_URL,
  PAYPAL_TEST_CERTIFICATE_PEM,
  PAYPAL_TEST_PRIVATE_KEY_PEM,
} from './paypal-test-certificate';
import { signPayPalDelivery } from './paypal.signer';
import { notificationsOf } from '../notifications';
import { PayPalCertificateResolver } from './paypal-certificate.resolver';
import {
  PAYPAL_DEFAULT_TOLERANCE_SECONDS,
  PayPalEndpointOptions,
  PayPalWebhookProvider,
  paypalEndpoint,
} from './paypal.provider';
import { InboundWebhook, NormalizedNotification } from '../webhook-provider.interface';
import {
  PAYPAL_SIGNING_SUBJECT,
  TestCertificate,
  TestCertificates,
} from '../../spec-support/paypal-certificates';

const WEBHOOK_ID = '8PT597110X687430LKGECATA';
const TRANSMISSION_ID = 'b2384410-f8d2-11e4-8bf3-77339302725b';
const NOW = new Date('2024-05-12T18:14:14Z');
const NOW_TEXT = '2024-05-12T18:14:14Z';
const OTHER_CERT_URL =
  'https://api.paypal.com/v1/notifications/certs/CERT-360caa42-fca2a594-d8bb5d0a';

// NOTE: an independent CRC-32 for the signed string: zlib's where this Node has it (20.15+).
const zlibCrc32 = (zlib as unknown as { crc32?: (data: Uint8Array) => number }).crc32;
function independentCrc32(body: Buffer): number {
  return zlibCrc32 ? zlibCrc32(body) : crc32(body);
}

/** Signs as PayPal does, with node:crypto only (no library code but the CRC fallback). */
function independentSignature(
  body: string | Buffer,
  privateKeyPem: string,
  {
    webhookId = WEBHOOK_ID,
    transmissionId = TRANSMISSION_ID,
    transmissionTime = NOW_TEXT,
  }: { webhookId?: string; transmissionId?: string; transmissionTime?: string } = {},
): string {
  const bytes = Buffer.isBuffer(body) ? body : Buffer.from(body, 'utf8');
  const message = `${transmissionId}|${transmissionTime}|${webhookId}|${independentCrc32(bytes)}`;
  return sign('sha256', Buffer.from(message), createPrivateKey(privateKeyPem)).toString('base64');
}

function headers(
  body: string | Buffer,
  overrides: Record<string, string> = {},
  privateKeyPem = PAYPAL_TEST_PRIVATE_KEY_PEM,
): Record<string, string> {
  const transmissionTime = overrides['paypal-transmission-time'] ?? NOW_TEXT;
  const transmissionId = overrides['paypal-transmission-id'] ?? TRANSMISSION_ID;
  return {
    'content-type': 'application/json',
    'paypal-auth-algo': 'SHA256withRSA',
    'paypal-cert-url': PAYPAL_TEST_CERT_URL,
    'paypal-transmission-id': transmissionId,
    'paypal-transmission-time': transmissionTime,
    'paypal-transmission-sig': independentSignature(body, privateKeyPem, {
      transmissionId,
      transmissionTime,
    }),
    ...overrides,
  };
}

function delivery(
  body: string | Buffer,
  requestHeaders: Record<string, string>,
  receivedAt = NOW,
): InboundWebhook {
  return {
    rawBody: Buffer.isBuffer(body) ? body : Buffer.from(body, 'utf8'),
    headers: requestHeaders,
    receivedAt,
  };
}

/** A resolver that answers from a map and records what it was asked. */
function resolverFor(certificates: Record<string, string>): PayPalCertificateResolver & {
  calls: string[];
} {
  const calls: string[] = [];
  const resolver = async (url: string): Promise<string> => {
    calls.push(url);
    const pem = certificates[url];
    if (pem === undefined) throw new Error(`no certificate at ${url}`);
    return pem;
  };
  return Object.assign(resolver, { calls });
}

function provider(
  options: Partial<PayPalEndpointOptions> = {},
  certificates: Record<string, string> = { [PAYPAL_TEST_CERT_URL]: PAYPAL_TEST_CERTIFICATE_PEM },
) {
  const resolver = resolverFor(certificates);
  const endpoint = paypalEndpoint({
    name: 'paypal',
    webhookId: WEBHOOK_ID,
    certificateResolver: resolver,
    trustedRoots: [PAYPAL_TEST_CA_PEM, testCa.certPem],
    ...options,
  });
  return { provider: endpoint.provider, resolver, endpoint };
}

async function rejection(
  promise: Promise<unknown> | unknown,
): Promise<{ name: string; reason: string; message: string }> {
  try {
    await promise;
  } catch (error) {
    const e = error as Error & { reason: string };
    return { name: e.name, reason: e.reason, message: e.message };
  }
  throw new Error('expected a rejection');
}

function syncRejection(fn: () => unknown): { name: string; message: string } {
  try {
    fn();
  } catch (error) {
    return { name: (error as Error).name, message: (error as Error).message };
  }
  throw new Error('expected a rejection');
}

const CAPTURE = JSON.stringify(
  paypalFixtures.captureCompleted({
    orderId: 'order-42',
    amount: 1099,
    currency: 'USD',
    eventId: 'WH-58D329510W468432D-8HN650336L201105X',
    captureId: '42311647XV020574X',
    createTime: NOW,
  }),
);

// Certificates made by OpenSSL for this run, issued by a CA of the run (the checked-in one is the default).
let certificates: TestCertificates;
let testCa: TestCertificate;
let otherCertificate: TestCertificate;
let shortLivedCertificate: TestCertificate;
let ecCertificate: TestCertificate;

beforeAll(() => {
  certificates = new TestCertificates();
  testCa = certificates.selfSigned({ subject: '/CN=PayPal spec test CA', role: 'ca' });
  otherCertificate = certificates.issue(testCa, { subject: PAYPAL_SIGNING_SUBJECT });
  shortLivedCertificate = certificates.issue(testCa, { subject: PAYPAL_SIGNING_SUBJECT, days: 1 });
  ecCertificate = certificates.issue(testCa, { subject: PAYPAL_SIGNING_SUBJECT, key: 'ec' });
});

afterAll(() => {
  certificates.remove();
});

describe('paypalEndpoint', () => {
  describe('verify', () => {
    it('accepts a delivery signed with node:crypto, fetching the certificate at PAYPAL-CERT-URL', async () => {
      const { provider: paypal, resolver } = provider();
      await expect(paypal.verify(delivery(CAPTURE, headers(CAPTURE)))).resolves.toBeUndefined();
      expect(resolver.calls).toEqual([PAYPAL_TEST_CERT_URL]);
    });

    it('signs the CRC-32 of the raw bytes, multi-byte UTF-8 included', async () => {
      const body = JSON.stringify({ ...JSON.parse(CAPTURE), summary: 'Café ☕ 東京' });
      await expect(
        provider().provider.verify(delivery(Buffer.from(body, 'utf8'), headers(body))),
      ).resolves.toBeUndefined();
    });

    it('takes the transmission time verbatim (fractions and offsets included)', async () => {
      for (const time of ['2024-05-12T18:14:14.123456Z', '2024-05-12T20:14:14+02:00']) {
        const request = delivery(CAPTURE, headers(CAPTURE, { 'paypal-transmission-time': time }));
        await expect(provider().provider.verify(request)).resolves.toBeUndefined();
      }
    });

    it('accepts PAYPAL-AUTH-ALGO in any case, as PayPal’s Java SDK does', async () => {
      const request = delivery(CAPTURE, {
        ...headers(CAPTURE),
        'paypal-auth-algo': 'sha256withrsa',
      });
      await expect(provider().provider.verify(request)).resolves.toBeUndefined();
    });

    it('rejects a body changed by one byte', async () => {
      const tampered = Buffer.from(CAPTURE, 'utf8');
      tampered[tampered.indexOf('10.99')] = '9'.charCodeAt(0);
      expect(
        await rejection(provider().provider.verify(delivery(tampered, headers(CAPTURE)))),
      ).toMatchObject({ name: 'WebhookVerificationError', reason: 'bad_signature' });
    });

    it('rejects a delivery signed for another webhook id, without echoing the configured one', async () => {
      const request = delivery(CAPTURE, headers(CAPTURE));
      const error = await rejection(
        provider({ webhookId: 'WH0THER0WEBHOOK0ID' }).provider.verify(request),
      );
      expect(error.reason).toBe('bad_signature');
      expect(error.message).toMatch(/webhookId/);
      expect(error.message).not.toContain('WH0THER0WEBHOOK0ID');
    });

    it.each([
      ['the transmission id', { 'paypal-transmission-id': randomUUID() }],
      ['the transmission time', { 'paypal-transmission-time': '2024-05-12T18:14:15Z' }],
    ])('rejects a signature replayed with another %s', async (_label, change) => {
      const request = delivery(CAPTURE, { ...headers(CAPTURE), ...change });
      expect(await rejection(provider().provider.verify(request))).toMatchObject({
        reason: 'bad_signature',
      });
    });

    it('rejects a signature made with another key than the certificate’s', async () => {
      const request = delivery(CAPTURE, headers(CAPTURE, {}, otherCertificate.keyPem));
      expect(await rejection(provider().provider.verify(request))).toMatchObject({
        reason: 'bad_signature',
      });
    });

    it('follows a certificate rotation: each delivery verifies with the certificate it names', async () => {
      const certificates = {
        [PAYPAL_TEST_CERT_URL]: PAYPAL_TEST_CERTIFICATE_PEM,
        [OTHER_CERT_URL]: otherCertificate.certPem,
      };
      const { provider: paypal, resolver } = provider({}, certificates);
      const now = new Date();
      const time = now.toISOString();
      const old = headers(CAPTURE, { 'paypal-transmission-time': time });
      const rotated = {
        ...headers(CAPTURE, { 'paypal-transmission-time': time }, otherCertificate.keyPem),
        'paypal-cert-url': OTHER_CERT_URL,
      };
      await expect(paypal.verify(delivery(CAPTURE, old, now))).resolves.toBeUndefined();
      await expect(paypal.verify(delivery(CAPTURE, rotated, now))).resolves.toBeUndefined();
      expect(resolver.calls).toEqual([PAYPAL_TEST_CERT_URL, OTHER_CERT_URL]);
      // The old key with the new certificate does not pass.
      const mixed = { ...old, 'paypal-cert-url': OTHER_CERT_URL };
      expect(await rejection(paypal.verify(delivery(CAPTURE, mixed, now)))).toMatchObject({
        reason: 'bad_signature',
      });
    });

    it.each([
      ['http', 'http://api.paypal.com/v1/notifications/certs/CERT-1'],
      ['another host', 'https://example.com/v1/notifications/certs/CERT-1'],
      ['a look-alike suffix', 'https://paypal.com.evil.com/v1/notifications/certs/CERT-1'],
      ['a look-alike prefix', 'https://evilpaypal.com/v1/notifications/certs/CERT-1'],
      ['a non-default port', 'https://api.paypal.com:8443/v1/notifications/certs/CERT-1'],
      ['credentials', 'https://user@api.paypal.com/v1/notifications/certs/CERT-1'],
      ['a file URL', 'file:///etc/passwd'],
      ['no URL at all', 'not a url'],
      ['another path on PayPal', 'https://api.paypal.com/v1/oauth2/token'],
      ['a path below a certificate', 'https://api.paypal.com/v1/notifications/certs/CERT-1/x'],
      ['dot segments', 'https://api.paypal.com/v1/notifications/certs/%2e%2e/%2e%2e/CERT-1'],
      ['a query', 'https://api.paypal.com/v1/notifications/certs/CERT-1?download=1'],
      ['a fragment', 'https://api.paypal.com/v1/notifications/certs/CERT-1#x'],
      ['no certificate id', 'https://api.paypal.com/v1/notifications/certs/'],
    ])('refuses a PAYPAL-CERT-URL with %s before fetching anything', async (_label, certUrl) => {
      const { provider: paypal, resolver } = provider(
        {},
        { [certUrl]: PAYPAL_TEST_CERTIFICATE_PEM },
      );
      const request = delivery(CAPTURE, { ...headers(CAPTURE), 'paypal-cert-url': certUrl });
      const error = await rejection(paypal.verify(request));
      expect(error).toMatchObject({ name: 'WebhookVerificationError', reason: 'bad_signature' });
      expect(error.message).toMatch(/PAYPAL-CERT-URL/);
      expect(resolver.calls).toEqual([]);
    });

    it.each([
      ['https', 'http://api.paypal.com/v1/notifications/certs/CERT-1', /only over https/],
      [
        'host',
        'https://paypal.com.evil.com/v1/notifications/certs/CERT-1',
        /its host "paypal.com.evil.com" is not paypal.com or a host under it/,
      ],
      [
        'port',
        'https://api.paypal.com:8443/v1/notifications/certs/CERT-1',
        /credentials or a port/,
      ],
      [
        'path',
        'https://api.paypal.com/v1/oauth2/token',
        /its path is not PayPal's certificate path \/v1\/notifications\/certs\/CERT-…/,
      ],
    ])(
      'says what is wrong with a refused PAYPAL-CERT-URL (%s)',
      async (_label, certUrl, reason) => {
        const request = delivery(CAPTURE, { ...headers(CAPTURE), 'paypal-cert-url': certUrl });
        expect((await rejection(provider().provider.verify(request))).message).toMatch(reason);
      },
    );

    it.each([
      'https://api.paypal.com/v1/notifications/certs/CERT-1',
      'https://api.sandbox.paypal.com/v1/notifications/certs/CERT-1',
      'https://paypal.com/v1/notifications/certs/CERT-1',
      'https://API.PayPal.com/v1/notifications/certs/CERT-1',
    ])('fetches a certificate from %s', async (certUrl) => {
      const normalized = new URL(certUrl).href;
      const { provider: paypal, resolver } = provider(
        {},
        { [normalized]: PAYPAL_TEST_CERTIFICATE_PEM },
      );
      const request = delivery(CAPTURE, { ...headers(CAPTURE), 'paypal-cert-url': certUrl });
      await expect(paypal.verify(request)).resolves.toBeUndefined();
      expect(resolver.calls).toEqual([normalized]);
    });

    it.each([
      ['too old', -(PAYPAL_DEFAULT_TOLERANCE_SECONDS + 1)],
      ['too new', PAYPAL_DEFAULT_TOLERANCE_SECONDS + 1],
    ])(
      'rejects a transmission time %s by the 4-day window + 1 s, without fetching',
      async (_label, offset) => {
        const time = new Date(NOW.getTime() + offset * 1000).toISOString();
        const { provider: paypal, resolver } = provider();
        const request = delivery(CAPTURE, headers(CAPTURE, { 'paypal-transmission-time': time }));
        expect(await rejection(paypal.verify(request))).toMatchObject({
          reason: 'timestamp_out_of_window',
        });
        expect(resolver.calls).toEqual([]);
      },
    );

    it.each([
      ['old', -(PAYPAL_DEFAULT_TOLERANCE_SECONDS - 1)],
      ['new', PAYPAL_DEFAULT_TOLERANCE_SECONDS - 1],
    ])('accepts a transmission time that is %s by the window - 1 s', async (_label, offset) => {
      const time = new Date(NOW.getTime() + offset * 1000).toISOString();
      const request = delivery(CAPTURE, headers(CAPTURE, { 'paypal-transmission-time': time }));
      await expect(provider().provider.verify(request)).resolves.toBeUndefined();
    });

    it('honours a custom tolerance, and 0 switches the window off', async () => {
      const time = new Date(NOW.getTime() - 3600 * 1000).toISOString();
      const request = delivery(CAPTURE, headers(CAPTURE, { 'paypal-transmission-time': time }));
      const verify = (toleranceSeconds: number) =>
        provider({ toleranceSeconds }).provider.verify(request);
      expect(await rejection(verify(300))).toMatchObject({ reason: 'timestamp_out_of_window' });
      await expect(verify(0)).resolves.toBeUndefined();
    });

    it('turns a failing certificate download into a clear verification error', async () => {
      const failing = paypalEndpoint({
        name: 'paypal',
        webhookId: WEBHOOK_ID,
        certificateResolver: async () => {
          throw new Error('getaddrinfo ENOTFOUND api.sandbox.paypal.com');
        },
      }).provider;
      const error = await rejection(failing.verify(delivery(CAPTURE, headers(CAPTURE))));
      expect(error).toMatchObject({ name: 'WebhookVerificationError', reason: 'bad_signature' });
      expect(error.message).toContain('Could not get the PayPal signing certificate');
      expect(error.message).toContain('ENOTFOUND');
      expect(error.message).toContain('PayPal will retry');
    });

    it.each([
      ['not a certificate', 'hello'],
      ['a private key', PAYPAL_TEST_PRIVATE_KEY_PEM],
    ])('rejects a certificate answer that is %s', async (_label, pem) => {
      const { provider: paypal } = provider({}, { [PAYPAL_TEST_CERT_URL]: pem });
      const error = await rejection(paypal.verify(delivery(CAPTURE, headers(CAPTURE))));
      expect(error).toMatchObject({ reason: 'bad_signature' });
      expect(error.message).toMatch(/not a PEM X\.509 certificate/);
    });

    it('rejects a certificate that has expired or is not valid yet at the receive time', async () => {
      const { provider: paypal } = provider(
        { toleranceSeconds: 0 },
        { [PAYPAL_TEST_CERT_URL]: shortLivedCertificate.certPem },
      );
      const signed = headers(CAPTURE, {}, shortLivedCertificate.keyPem);
      await expect(paypal.verify(delivery(CAPTURE, signed, new Date()))).resolves.toBeUndefined();
      for (const days of [2, -2]) {
        const at = new Date(Date.now() + days * 24 * 3600 * 1000);
        const error = await rejection(paypal.verify(delivery(CAPTURE, signed, at)));
        expect(error).toMatchObject({ reason: 'bad_signature' });
        expect(error.message).toMatch(/not valid at the receive time/);
      }
    });

    it('rejects a certificate without an RSA key', async () => {
      const { provider: paypal } = provider(
        { toleranceSeconds: 0 },
        { [PAYPAL_TEST_CERT_URL]: ecCertificate.certPem },
      );
      const error = await rejection(paypal.verify(delivery(CAPTURE, headers(CAPTURE), new Date())));
      expect(error.message).toMatch(/does not hold an RSA key/);
    });

    it.each([
      ['PAYPAL-TRANSMISSION-SIG', 'paypal-transmission-sig'],
      ['PAYPAL-TRANSMISSION-ID', 'paypal-transmission-id'],
      ['PAYPAL-TRANSMISSION-TIME', 'paypal-transmission-time'],
      ['PAYPAL-CERT-URL', 'paypal-cert-url'],
      ['PAYPAL-AUTH-ALGO', 'paypal-auth-algo'],
    ])('rejects a delivery without %s as missing_signature', async (display, name) => {
      for (const value of [undefined, '', '  ']) {
        const request = delivery(CAPTURE, { ...headers(CAPTURE), [name]: value as string });
        if (value === undefined) delete (request.headers as Record<string, string>)[name];
        const error = await rejection(provider().provider.verify(request));
        expect(error).toMatchObject({ reason: 'missing_signature' });
        expect(error.message).toBe(`Missing ${display} header`);
      }
    });

    it.each([
      ['an unsupported algorithm', { 'paypal-auth-algo': 'SHA1withRSA' }, /PAYPAL-AUTH-ALGO/],
      ['a time that is not RFC 3339', { 'paypal-transmission-time': '12 May 2024' }, /RFC 3339/],
      [
        'a time that does not exist',
        { 'paypal-transmission-time': '2024-13-45T99:00:00Z' },
        /RFC 3339/,
      ],
      ['a signature that is not base64', { 'paypal-transmission-sig': 'not*base64' }, /base64/],
    ])('rejects %s as bad_signature', async (_label, change, message) => {
      const request = delivery(CAPTURE, { ...headers(CAPTURE), ...change });
      const error = await rejection(provider().provider.verify(request));
      expect(error).toMatchObject({ reason: 'bad_signature' });
      expect(error.message).toMatch(message);
    });
  });

  describe('signPayPalDelivery', () => {
    it('signs exactly as PayPal does (the same bytes as node:crypto over the documented string)', () => {
      const signed = signPayPalDelivery({
        payload: CAPTURE,
        webhookId: WEBHOOK_ID,
        transmissionId: TRANSMISSION_ID,
        transmissionTime: NOW,
      });
      expect(signed).toEqual({
        provider: 'paypal',
        method: 'POST',
        body: CAPTURE,
        eventId: 'WH-58D329510W468432D-8HN650336L201105X',
        headers: {
          'content-type': 'application/json',
          'paypal-auth-algo': 'SHA256withRSA',
          'paypal-cert-url': PAYPAL_TEST_CERT_URL,
          'paypal-transmission-id': TRANSMISSION_ID,
          'paypal-transmission-time': NOW_TEXT,
          'paypal-transmission-sig': independentSignature(CAPTURE, PAYPAL_TEST_PRIVATE_KEY_PEM),
        },
      });
    });

    it('is accepted by the verifier, with defaults for time and id, and an object payload', async () => {
      const event = paypalFixtures.captureCompleted();
      const signed = signPayPalDelivery({ payload: event, webhookId: WEBHOOK_ID });
      expect(signed.body).toBe(JSON.stringify(event));
      expect(signed.headers['paypal-transmission-id']).toMatch(/^[0-9a-f-]{36}$/);
      expect(signed.headers['paypal-transmission-time']).toMatch(
        /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/,
      );
      await expect(
        provider().provider.verify(delivery(signed.body, signed.headers, new Date())),
      ).resolves.toBeUndefined();
    });

    it('signs with a given key and certificate URL', async () => {
      const signed = signPayPalDelivery({
        payload: CAPTURE,
        webhookId: WEBHOOK_ID,
        privateKey: otherCertificate.keyPem,
        certUrl: OTHER_CERT_URL,
      });
      const { provider: paypal } = provider({}, { [OTHER_CERT_URL]: otherCertificate.certPem });
      await expect(
        paypal.verify(delivery(signed.body, signed.headers, new Date())),
      ).resolves.toBeUndefined();
    });
  });

  describe('configuration', () => {
    function configError(options: Partial<PayPalEndpointOptions>): string {
      const error = syncRejection(() =>
        paypalEndpoint({ name: 'paypal', ...options } as PayPalEndpointOptions),
      );
      expect(error.name).toBe(WebhookConfigurationError.name);
      return error.message;
    }

    it('builds the endpoint record with an empty 200 as the acknowledgement', () => {
      const { endpoint } = provider();
      expect(endpoint).toMatchObject({
        name: 'paypal',
        acknowledgement: { status: 200, body: '', contentType: 'text/plain; charset=utf-8' },
      });
      expect(endpoint.provider).toBeInstanceOf(PayPalWebhookProvider);
      expect(endpoint.provider.kind).toBe('paypal');
    });

    it.each([
      ['missing', undefined],
      ['empty', ''],
      ['with a line break', 'WH123\n'],
    ])('requires a webhookId (%s) and says where to find it', (_label, webhookId) => {
      const message = configError({ webhookId: webhookId as string });
      expect(message).toMatch(/"paypal" \(paypal\) has no usable webhookId/);
      expect(message).toMatch(/Apps & Credentials/);
      expect(message).toMatch(/WEBHOOK_ID/);
    });

    it.each([-1, 1.5, Number.NaN])('refuses toleranceSeconds %p', (toleranceSeconds) => {
      expect(configError({ webhookId: WEBHOOK_ID, toleranceSeconds })).toMatch(
        /toleranceSeconds must be a whole number of seconds.*345600/,
      );
    });

    it('refuses a certificateResolver that is not a function', () => {
      expect(
        configError({
          webhookId: WEBHOOK_ID,
          certificateResolver: 'https://api.paypal.com' as unknown as PayPalCertificateResolver,
        }),
      ).toMatch(/certificateResolver must be a function/);
    });
  });

  describe('normalize', () => {
    function normalize(event: object | string): NormalizedNotification {
      const body = typeof event === 'string' ? event : JSON.stringify(event);
      return notificationsOf(provider().provider.normalize(delivery(body, {})))[0];
    }

    it.each([
      ['PAYMENT.CAPTURE.COMPLETED', paypalFixtures.captureCompleted(), 'payment.succeeded'],
      ['PAYMENT.CAPTURE.DENIED', paypalFixtures.captureDenied(), 'payment.failed'],
      ['PAYMENT.CAPTURE.DECLINED', paypalFixtures.captureDeclined(), 'payment.failed'],
      ['PAYMENT.CAPTURE.REFUNDED', paypalFixtures.captureRefunded(), 'refund.succeeded'],
      ['CUSTOMER.DISPUTE.CREATED', paypalFixtures.disputeCreated(), 'dispute.opened'],
      ['CUSTOMER.DISPUTE.RESOLVED', paypalFixtures.disputeResolved(), 'dispute.closed'],
      [
        'PAYMENT.CAPTURE.PENDING',
        paypalFixtures.capturePending(),
        'paypal:PAYMENT.CAPTURE.PENDING',
      ],
      [
        'CHECKOUT.ORDER.APPROVED',
        {
          id: 'WH-1',
          event_type: 'CHECKOUT.ORDER.APPROVED',
          resource: { id: '5O190127TN364715T' },
        },
        'paypal:CHECKOUT.ORDER.APPROVED',
      ],
    ])('maps %s to its type, keyed by the event id', (nativeType, event, type) => {
      const result = normalize(event);
      expect(result.type).toBe(type);
      expect(result.nativeType).toBe(nativeType);
      expect(result.eventId).toBe(event.id);
      expect(result.eventId).toMatch(/^WH-/);
    });

    it('reads a completed capture: capture id, custom_id, amount in minor units, status, time', () => {
      const result = normalize(CAPTURE);
      expect(result).toMatchObject({
        eventId: 'WH-58D329510W468432D-8HN650336L201105X',
        type: 'payment.succeeded',
        paymentRef: '42311647XV020574X',
        merchantRef: 'order-42',
        amount: 1099,
        currency: 'USD',
        status: 'COMPLETED',
        occurredAt: NOW,
      });
      expect(result.payload).toEqual(JSON.parse(CAPTURE));
    });

    it('gives the same event id to every delivery of one event (dedup key)', async () => {
      const event = paypalFixtures.captureCompleted();
      const first = signPayPalDelivery({ payload: event, webhookId: WEBHOOK_ID });
      const retry = signPayPalDelivery({ payload: event, webhookId: WEBHOOK_ID });
      expect(first.headers['paypal-transmission-id']).not.toBe(
        retry.headers['paypal-transmission-id'],
      );
      expect(normalize(first.body).eventId).toBe(normalize(retry.body).eventId);
    });

    it.each([
      ['JPY', 1000, 1000],
      ['KWD', 1500, 1500],
      ['EUR', 5, 5],
    ])('converts a %s value by the currency’s decimals', (currency, amount, minor) => {
      const result = normalize(paypalFixtures.captureCompleted({ amount, currency }));
      expect(result).toMatchObject({ amount: minor, currency });
    });

    it('takes the refunded capture from the refund’s "up" link, never the refund id', () => {
      const refunded = paypalFixtures.captureRefunded({
        captureId: '2GG279541U471931P',
        refundId: '1JU08902781691411',
        orderId: 'order-7',
        amount: 500,
      });
      expect(normalize(refunded)).toMatchObject({
        type: 'refund.succeeded',
        paymentRef: '2GG279541U471931P',
        merchantRef: 'order-7',
        amount: 500,
        currency: 'USD',
        status: 'COMPLETED',
      });
      const withoutLinks = { ...refunded, resource: { ...refunded.resource, links: [] } };
      expect(normalize(withoutLinks).paymentRef).toBeUndefined();
      const malformed = {
        ...refunded,
        resource: {
          ...refunded.resource,
          links: [{ href: 'https://api.paypal.com/v2/payments/captures/%E0%A4%A', rel: 'up' }],
        },
      };
      expect(normalize(malformed).paymentRef).toBeUndefined();
    });

    it('reads a dispute: disputed capture, its custom field and the disputed amount', () => {
      const created = paypalFixtures.disputeCreated({
        captureId: '42311647XV020574X',
        orderId: 'order-9',
        amount: 2500,
        currency: 'EUR',
        disputeId: 'PP-D-27803',
      });
      expect(normalize(created)).toMatchObject({
        type: 'dispute.opened',
        paymentRef: '42311647XV020574X',
        merchantRef: 'order-9',
        amount: 2500,
        currency: 'EUR',
        status: 'OPEN',
      });
      expect(normalize(paypalFixtures.disputeResolved()).status).toBe('RESOLVED');
    });

    it('falls back to invoice_id for the merchant reference', () => {
      const event = paypalFixtures.captureCompleted();
      const { custom_id: _custom, ...resource } = event.resource;
      const result = normalize({
        ...event,
        resource: { ...resource, invoice_id: 'INV-2024-0042' },
      });
      expect(result.merchantRef).toBe('INV-2024-0042');
    });

    it('leaves out an amount it cannot represent exactly, and a missing create_time', () => {
      const event = paypalFixtures.captureCompleted();
      const result = normalize({
        id: event.id,
        event_type: event.event_type,
        resource: { ...event.resource, amount: { currency_code: 'USD', value: '10.999' } },
      });
      expect(result.amount).toBeUndefined();
      expect(result.currency).toBe('USD');
      expect(result.occurredAt).toBeUndefined();
    });

    it.each([
      ['not JSON', '{"id": "WH-1",'],
      ['not UTF-8', Buffer.from([0x7b, 0xff, 0xfe, 0x7d])],
      ['a JSON array', '[]'],
    ])('throws WebhookPayloadError for a body that is %s', (_label, body) => {
      const error = syncRejection(() => provider().provider.normalize(delivery(body, {})));
      expect(error.name).toBe('WebhookPayloadError');
    });

    it.each([
      ['no id', { event_type: 'PAYMENT.CAPTURE.COMPLETED', resource: {} }],
      ['an empty id', { id: '', event_type: 'PAYMENT.CAPTURE.COMPLETED', resource: {} }],
      ['no event_type', { id: 'WH-1', resource: {} }],
      ['no resource', { id: 'WH-1', event_type: 'PAYMENT.CAPTURE.COMPLETED' }],
      ['a string resource', { id: 'WH-1', event_type: 'PAYMENT.CAPTURE.COMPLETED', resource: 'x' }],
      ['a numeric create_time', { id: 'WH-1', event_type: 'X', resource: {}, create_time: 1 }],
    ])('throws WebhookPayloadError for an event with %s', (_label, event) => {
      const error = syncRejection(() => normalize(event));
      expect(error.name).toBe('WebhookPayloadError');
      expect(error.message).toMatch(/^PayPal event is not valid: /);
    });
  });
});
