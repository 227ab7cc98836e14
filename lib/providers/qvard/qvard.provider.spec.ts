import { notificationsOf } from '../notifications';
import { createHmac } from 'node:crypto';
import { WebhookConfigurationError, WebhookPayloadError } from '../../core/webhook-errors';
import { signQvard } from './qvard.signer';
import { QvardEndpointOptions, qvardEndpoint } from './qvard.provider';
import { InboundWebhook, WebhookProvider } from '../webhook-provider.interface';
import { rejection } from '../../spec-support/rejection';

const SECRET = 'qv_test_secret';
const OTHER_SECRET = 'qv_previous_secret';
const PAYLOAD = '{"id":"order-1042","status":"completed"}';
// NOTE: Qvard publishes no SDK for Node and no test vector; this one is pinned here and recomputed
// below with node:crypto, so neither the provider nor signQvard is checked against itself.
const PAYLOAD_SIGNATURE = 'ab71d82ed4dffb2eb19cfae4434cac47c2a0696333f051c89da976f1eb4fff2c';

function independentSignature(payload: string | Buffer, secret: string): string {
  return createHmac('sha256', secret).update(payload).digest('hex');
}

function delivery(payload: string | Buffer, headers: Record<string, string>): InboundWebhook {
  return {
    rawBody: Buffer.isBuffer(payload) ? payload : Buffer.from(payload, 'utf8'),
    headers,
    receivedAt: new Date(),
  };
}

function signed(payload: string | Buffer, secret = SECRET): InboundWebhook {
  return delivery(payload, { 'x-qvard-signature': independentSignature(payload, secret) });
}

function provider(options: Partial<QvardEndpointOptions> = {}): WebhookProvider {
  return qvardEndpoint({ name: 'qvard', secret: SECRET, ...options }).provider;
}

describe('qvardEndpoint', () => {
  describe('verify', () => {
    it('computes the pinned vector independently', () => {
      expect(independentSignature(PAYLOAD, SECRET)).toBe(PAYLOAD_SIGNATURE);
    });

    it('accepts the pinned vector', () => {
      const request = delivery(PAYLOAD, { 'x-qvard-signature': PAYLOAD_SIGNATURE });
      expect(() => provider().verify(request)).not.toThrow();
    });

    it('accepts upper-case hex and surrounding spaces', () => {
      const request = delivery(PAYLOAD, {
        'x-qvard-signature': ` ${PAYLOAD_SIGNATURE.toUpperCase()} `,
      });
      expect(() => provider().verify(request)).not.toThrow();
    });

    it('signs the raw bytes, multi-byte UTF-8 included', () => {
      const payload = Buffer.from('{"id":"заказ-7","status":"completed"}', 'utf8');
      expect(() => provider().verify(signed(payload))).not.toThrow();
    });

    it('accepts either secret while two are configured (rotation)', () => {
      const rotating = provider({ secret: [OTHER_SECRET, SECRET] });
      expect(() => rotating.verify(signed(PAYLOAD, SECRET))).not.toThrow();
      expect(() => rotating.verify(signed(PAYLOAD, OTHER_SECRET))).not.toThrow();
    });

    it('rejects a body changed by one byte', () => {
      const tampered = Buffer.from(PAYLOAD, 'utf8');
      tampered[tampered.indexOf('1042')] = '2'.charCodeAt(0);
      const request = delivery(tampered, { 'x-qvard-signature': PAYLOAD_SIGNATURE });
      expect(rejection(() => provider().verify(request))).toMatchObject({
        name: 'WebhookVerificationError',
        reason: 'bad_signature',
      });
    });

    it('rejects a signature made with another secret, without echoing secret or signature', () => {
      const error = rejection(() => provider().verify(signed(PAYLOAD, OTHER_SECRET)));
      expect(error.reason).toBe('bad_signature');
      expect(error.message).not.toContain(PAYLOAD_SIGNATURE);
      expect(error.message).not.toContain(SECRET);
    });

    it('has no timestamp, so the receive time does not matter', () => {
      const request = { ...signed(PAYLOAD), receivedAt: new Date('2001-01-01T00:00:00Z') };
      expect(() => provider().verify(request)).not.toThrow();
    });

    it.each([
      ['absent', {}],
      ['empty', { 'x-qvard-signature': '' }],
    ])('rejects a delivery whose header is %s as missing_signature', (_label, headers) => {
      expect(rejection(() => provider().verify(delivery(PAYLOAD, headers)))).toMatchObject({
        reason: 'missing_signature',
      });
    });

    it.each([
      ['not hex', 'z'.repeat(64)],
      ['too short', PAYLOAD_SIGNATURE.slice(0, 63)],
      ['too long', `${PAYLOAD_SIGNATURE}00`],
      ['prefixed', `sha256=${PAYLOAD_SIGNATURE}`],
      ['base64', Buffer.from(PAYLOAD_SIGNATURE, 'hex').toString('base64')],
    ])('rejects a malformed header (%s) as bad_signature', (_label, header) => {
      expect(
        rejection(() => provider().verify(delivery(PAYLOAD, { 'x-qvard-signature': header }))),
      ).toMatchObject({
        reason: 'bad_signature',
      });
    });
  });

  describe('configuration', () => {
    function configError(options: Partial<QvardEndpointOptions>): string {
      const error = rejection(() =>
        qvardEndpoint({ name: 'qvard', ...options } as QvardEndpointOptions),
      );
      expect(error.name).toBe(WebhookConfigurationError.name);
      return error.message;
    }

    it('answers exactly 200 with an empty body', () => {
      const endpoint = qvardEndpoint({ name: 'qvard', secret: SECRET });
      expect(endpoint.provider.kind).toBe('qvard');
      expect(endpoint.acknowledgement).toEqual({
        status: 200,
        body: '',
        contentType: 'text/plain; charset=utf-8',
      });
    });

    it('requires a secret and refuses blank ones', () => {
      expect(configError({ secret: undefined })).toMatch(/"qvard" \(qvard\) has no usable secret/);
      expect(configError({ secret: '' })).toMatch(/no usable secret/);
      expect(configError({ secret: [SECRET, '  '] })).toMatch(/no usable secret/);
    });

    it.each([201, 202, 204])(
      'refuses acknowledgement status %p, which Qvard counts as a failure',
      (status) => {
        expect(configError({ secret: SECRET, acknowledgement: { status } })).toMatch(
          /counts only exactly HTTP 200/,
        );
      },
    );

    it('allows an acknowledgement override that keeps 200', () => {
      const endpoint = qvardEndpoint({
        name: 'qvard',
        secret: SECRET,
        acknowledgement: { body: 'OK' },
      });
      expect(endpoint.acknowledgement).toMatchObject({ status: 200, body: 'OK' });
    });

    it('refuses an endpoint name that cannot be used in a URL', () => {
      expect(configError({ name: '', secret: SECRET })).toMatch(/is not usable in a URL/);
    });
  });

  describe('normalize', () => {
    function normalize(body: unknown) {
      return notificationsOf(provider().normalize(delivery(JSON.stringify(body), {})))[0];
    }

    it('maps completed to payment.succeeded, keyed by order id and status', () => {
      const result = notificationsOf(provider().normalize(delivery(PAYLOAD, {})))[0];
      expect(result).toEqual({
        eventId: 'order-1042:completed',
        type: 'payment.succeeded',
        nativeType: 'completed',
        merchantRef: 'order-1042',
        status: 'completed',
        payload: { id: 'order-1042', status: 'completed' },
      });
    });

    it.each([
      ['failed', 'qvard:failed'],
      ['expired', 'qvard:expired'],
      ['Completed', 'qvard:Completed'],
    ])('maps status %s to %s', (status, type) => {
      const result = normalize({ id: 'o-1', status });
      expect(result).toMatchObject({ type, nativeType: status, eventId: `o-1:${status}` });
    });

    it('accepts a numeric order id', () => {
      expect(normalize({ id: 1042, status: 'completed' })).toMatchObject({
        merchantRef: '1042',
        eventId: '1042:completed',
      });
    });

    it.each([
      ['not JSON', 'id=1&status=completed'],
      ['a JSON array', '[]'],
    ])('throws WebhookPayloadError for a body that is %s', (_label, body) => {
      expect(() => provider().normalize(delivery(body, {}))).toThrow(WebhookPayloadError);
    });

    it.each([
      ['no id', { status: 'completed' }],
      ['an empty id', { id: '', status: 'completed' }],
      ['a fractional id', { id: 10.5, status: 'completed' }],
      ['an id too large for JSON numbers', { id: 2 ** 60, status: 'completed' }],
      ['an object id', { id: { value: 1 }, status: 'completed' }],
      ['no status', { id: 'o-1' }],
      ['a numeric status', { id: 'o-1', status: 1 }],
    ])('throws WebhookPayloadError for a notification with %s', (_label, body) => {
      const error = rejection(() => normalize(body));
      expect(error.name).toBe('WebhookPayloadError');
      expect(error.message).toMatch(/^Qvard notification is not valid: /);
    });
  });

  describe('signQvard', () => {
    it('produces the independently computed signature', () => {
      expect(signQvard({ payload: PAYLOAD, secret: SECRET })).toEqual({
        'x-qvard-signature': PAYLOAD_SIGNATURE,
      });
      const bytes = Buffer.from('{"id":7,"status":"completed"}');
      expect(signQvard({ payload: bytes, secret: OTHER_SECRET })['x-qvard-signature']).toBe(
        independentSignature(bytes, OTHER_SECRET),
      );
    });

    it('is accepted by the verifier', () => {
      expect(() =>
        provider().verify(delivery(PAYLOAD, signQvard({ payload: PAYLOAD, secret: SECRET }))),
      ).not.toThrow();
    });
  });
});
