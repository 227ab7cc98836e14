import { notificationsOf } from '../notifications';
import { createHash, createHmac } from 'node:crypto';
import { WebhookConfigurationError, WebhookPayloadError } from '../../core/webhook-errors';
import { signHmac } from './hmac.signer';
import { HmacEndpointOptions, hmacEndpoint } from './hmac.provider';
import { InboundWebhook, WebhookProvider } from '../webhook-provider.interface';
import { nonCanonicalBase64 } from '../../spec-support/base64-variants';
import { rejection } from '../../spec-support/rejection';

// The documented GitHub vector.
const GITHUB = {
  secret: "It's a Secret to Everybody",
  payload: 'Hello, World!',
  signature: 'sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17',
};
const GITHUB_OPTIONS = { signatureHeader: 'X-Hub-Signature-256', signaturePrefix: 'sha256=' };
const SECRET = 'shared-secret';
const OTHER_SECRET = 'previous-secret';
const NOW = 1_700_000_000;
const PAYMENT = JSON.stringify({
  id: 'evt_77',
  type: 'payment.succeeded',
  data: { orderId: 'order-42', paymentId: 'pay_1', amount: 990, currency: 'gbp' },
});

function hex(payload: string | Buffer, secret = SECRET): string {
  return createHmac('sha256', secret).update(payload).digest('hex');
}

function delivery(
  payload: string | Buffer,
  headers: Record<string, string>,
  receivedAtSeconds = NOW,
): InboundWebhook {
  return {
    rawBody: Buffer.isBuffer(payload) ? payload : Buffer.from(payload, 'utf8'),
    headers,
    receivedAt: new Date(receivedAtSeconds * 1000),
  };
}

function provider(options: Partial<HmacEndpointOptions> = {}): WebhookProvider {
  return hmacEndpoint({ name: 'hooks', secret: SECRET, ...options }).provider;
}

describe('hmacEndpoint', () => {
  describe('verify', () => {
    it('accepts the documented GitHub vector', () => {
      const github = provider({ ...GITHUB_OPTIONS, secret: GITHUB.secret });
      const request = delivery(GITHUB.payload, { 'x-hub-signature-256': GITHUB.signature });
      expect(() => github.verify(request)).not.toThrow();
    });

    it('accepts a bare hex signature in x-signature by default, in either case', () => {
      for (const signature of [hex(PAYMENT), hex(PAYMENT).toUpperCase()]) {
        expect(() =>
          provider().verify(delivery(PAYMENT, { 'x-signature': signature })),
        ).not.toThrow();
      }
    });

    it('accepts a base64 signature when so configured', () => {
      const signature = createHmac('sha256', SECRET).update(PAYMENT).digest('base64');
      const request = delivery(PAYMENT, { 'x-signature': signature });
      expect(() => provider({ encoding: 'base64' }).verify(request)).not.toThrow();
      expect(rejection(() => provider().verify(request))).toMatchObject({
        reason: 'bad_signature',
      });
    });

    it('accepts either secret while two are configured (rotation)', () => {
      const rotating = provider({ secret: [OTHER_SECRET, SECRET] });
      for (const secret of [SECRET, OTHER_SECRET]) {
        expect(() =>
          rotating.verify(delivery(PAYMENT, { 'x-signature': hex(PAYMENT, secret) })),
        ).not.toThrow();
      }
    });

    it('rejects a body changed by one byte', () => {
      const tampered = Buffer.from(PAYMENT, 'utf8');
      tampered[tampered.indexOf('990')] = '1'.charCodeAt(0);
      expect(
        rejection(() => provider().verify(delivery(tampered, { 'x-signature': hex(PAYMENT) }))),
      ).toMatchObject({
        name: 'WebhookVerificationError',
        reason: 'bad_signature',
      });
    });

    it('rejects a signature made with another secret, without echoing secret or signature', () => {
      const error = rejection(() =>
        provider().verify(delivery(PAYMENT, { 'x-signature': hex(PAYMENT, OTHER_SECRET) })),
      );
      expect(error.reason).toBe('bad_signature');
      expect(error.message).not.toContain(hex(PAYMENT));
      expect(error.message).not.toContain(SECRET);
    });

    it('requires the configured prefix', () => {
      const github = provider({ ...GITHUB_OPTIONS, secret: GITHUB.secret });
      const bare = GITHUB.signature.slice('sha256='.length);
      const error = rejection(() =>
        github.verify(delivery(GITHUB.payload, { 'x-hub-signature-256': bare })),
      );
      expect(error).toMatchObject({ reason: 'bad_signature' });
      expect(error.message).toContain('sha256=');
    });

    it.each([
      ['absent', {}],
      ['empty', { 'x-signature': '' }],
      ['under another name', { 'x-hub-signature-256': hex(PAYMENT) }],
    ])(
      'rejects a delivery whose signature header is %s as missing_signature',
      (_label, headers) => {
        expect(rejection(() => provider().verify(delivery(PAYMENT, headers)))).toMatchObject({
          reason: 'missing_signature',
        });
      },
    );

    it.each([
      ['not hex', 'g'.repeat(64)],
      ['too short', 'ab'.repeat(31)],
      ['a SHA-1 length', 'ab'.repeat(20)],
    ])('rejects a malformed signature (%s) as bad_signature', (_label, signature) => {
      expect(
        rejection(() => provider().verify(delivery(PAYMENT, { 'x-signature': signature }))),
      ).toMatchObject({
        reason: 'bad_signature',
      });
    });

    it('accepts only the canonical base64 spelling of the signature', () => {
      const signature = createHmac('sha256', SECRET).update(PAYMENT).digest('base64');
      const base64 = provider({ encoding: 'base64' });
      expect(() => base64.verify(delivery(PAYMENT, { 'x-signature': signature }))).not.toThrow();
      for (const [label, variant] of nonCanonicalBase64(signature)) {
        const request = delivery(PAYMENT, { 'x-signature': variant });
        expect([label, rejection(() => base64.verify(request))]).toMatchObject([
          label,
          { reason: 'bad_signature', message: expect.stringMatching(/expected a base64/) },
        ]);
      }
    });

    it('rejects a malformed base64 signature as bad_signature', () => {
      const request = delivery(PAYMENT, { 'x-signature': 'not*base64' });
      expect(rejection(() => provider({ encoding: 'base64' }).verify(request))).toMatchObject({
        reason: 'bad_signature',
      });
    });

    describe('with a timestamp header', () => {
      const options = { timestampHeader: 'X-Timestamp' };

      function timed(timestamp: number, secret = SECRET): Record<string, string> {
        return {
          'x-timestamp': String(timestamp),
          'x-signature': hex(`${timestamp}.${PAYMENT}`, secret),
        };
      }

      it('signs `${timestamp}.` + raw body', () => {
        expect(() => provider(options).verify(delivery(PAYMENT, timed(NOW)))).not.toThrow();
        const bodyOnly = { 'x-timestamp': String(NOW), 'x-signature': hex(PAYMENT) };
        expect(
          rejection(() => provider(options).verify(delivery(PAYMENT, bodyOnly))),
        ).toMatchObject({
          reason: 'bad_signature',
        });
      });

      it('rejects a changed timestamp, since it is signed', () => {
        const headers = { ...timed(NOW), 'x-timestamp': String(NOW + 1) };
        expect(rejection(() => provider(options).verify(delivery(PAYMENT, headers)))).toMatchObject(
          {
            reason: 'bad_signature',
          },
        );
      });

      it.each([
        ['too old', NOW - 301],
        ['too new', NOW + 301],
      ])('rejects a timestamp %s by tolerance + 1', (_label, timestamp) => {
        expect(
          rejection(() => provider(options).verify(delivery(PAYMENT, timed(timestamp)))),
        ).toMatchObject({
          reason: 'timestamp_out_of_window',
        });
      });

      it.each([
        ['old', NOW - 299],
        ['new', NOW + 299],
      ])('accepts a timestamp that is %s by tolerance - 1', (_label, timestamp) => {
        expect(() => provider(options).verify(delivery(PAYMENT, timed(timestamp)))).not.toThrow();
      });

      it('honours a custom tolerance, and 0 switches the window off', () => {
        const request = delivery(PAYMENT, timed(NOW - 3600));
        expect(
          rejection(() => provider({ ...options, toleranceSeconds: 60 }).verify(request)),
        ).toMatchObject({
          reason: 'timestamp_out_of_window',
        });
        expect(() => provider({ ...options, toleranceSeconds: 0 }).verify(request)).not.toThrow();
      });

      it('rejects a missing timestamp header as missing_signature', () => {
        const headers = { 'x-signature': hex(PAYMENT) };
        expect(rejection(() => provider(options).verify(delivery(PAYMENT, headers)))).toMatchObject(
          {
            reason: 'missing_signature',
          },
        );
      });

      it.each(['soon', `${NOW}.0`, '-1'])('rejects timestamp %p as bad_signature', (timestamp) => {
        const headers = { 'x-timestamp': timestamp, 'x-signature': hex(`${timestamp}.${PAYMENT}`) };
        expect(rejection(() => provider(options).verify(delivery(PAYMENT, headers)))).toMatchObject(
          {
            reason: 'bad_signature',
          },
        );
      });
    });
  });

  describe('configuration', () => {
    function configError(options: Partial<HmacEndpointOptions>): string {
      const error = rejection(() =>
        hmacEndpoint({ name: 'hooks', secret: SECRET, ...options } as HmacEndpointOptions),
      );
      expect(error.name).toBe(WebhookConfigurationError.name);
      return error.message;
    }

    it('builds the endpoint record with kind hmac and an empty 200', () => {
      const endpoint = hmacEndpoint({ name: 'hooks', secret: SECRET });
      expect(endpoint.provider.kind).toBe('hmac');
      expect(endpoint.acknowledgement).toEqual({
        status: 200,
        body: '',
        contentType: 'text/plain; charset=utf-8',
      });
    });

    it('requires a secret and refuses blank ones', () => {
      expect(configError({ secret: undefined })).toMatch(/"hooks" \(hmac\) has no usable secret/);
      expect(configError({ secret: '\t' })).toMatch(/no usable secret/);
      expect(configError({ secret: [SECRET, ''] })).toMatch(/no usable secret/);
    });

    it('refuses an unknown encoding', () => {
      expect(configError({ encoding: 'base32' as 'hex' })).toMatch(
        /use "hex" \(the default\) or "base64"/,
      );
    });

    it.each([
      ['signatureHeader', 'X Signature'],
      ['signatureHeader', ''],
      ['timestampHeader', 'x-timestamp:'],
      ['eventIdHeader', 'x-id\n'],
      ['typeHeader', ''],
    ])('refuses %s %p', (option, value) => {
      expect(configError({ [option]: value, trustUnsignedHeaders: true })).toMatch(
        new RegExp(`${option} .* is not an HTTP header name`),
      );
    });

    it.each([
      ['eventIdHeader', 'x-github-delivery', 'a new event whose handlers run again'],
      ['typeHeader', 'x-github-event', 'the handlers of that type run for it'],
    ])(
      'refuses %s, which the signature does not cover, naming the risk and the fix',
      (option, header, risk) => {
        const message = configError({ kind: 'github', [option]: header });
        expect(message).toContain(`${option} "${header}" is not covered by the signature`);
        expect(message).toContain('the signed content is the raw body alone');
        expect(message).toContain(risk);
        expect(message).toContain(`remove ${option}`);
        expect(message).toContain('trustUnsignedHeaders: true');
        expect(message).toContain("'github:<value>'");
      },
    );

    it('refuses an id header beside a signed timestamp, which still covers only the timestamp', () => {
      expect(
        configError({ timestampHeader: 'x-timestamp', eventIdHeader: 'x-delivery' }),
      ).toContain('the signed content is "<x-timestamp>.<raw body>"');
      expect(() =>
        provider({ timestampHeader: 'x-timestamp', eventIdHeader: 'X-Timestamp' }),
      ).not.toThrow();
    });

    it.each([
      ['eventIdPath', ''],
      ['typePath', 'data..type'],
      ['merchantRefPath', '.orderId'],
      ['amountPath', 'amount.'],
    ])('refuses %s %p', (option, value) => {
      expect(configError({ [option]: value })).toMatch(
        new RegExp(`${option} .* is not a dotted JSON path`),
      );
    });

    it('refuses an empty signaturePrefix, a bad kind and a negative tolerance', () => {
      expect(configError({ signaturePrefix: '' })).toMatch(
        /signaturePrefix must be a non-empty string/,
      );
      expect(configError({ kind: 'my:kind' })).toMatch(/kind must be/);
      expect(configError({ toleranceSeconds: -1 })).toMatch(/toleranceSeconds must be/);
    });

    it('refuses an endpoint name that cannot be used in a URL', () => {
      expect(configError({ name: 'a'.repeat(65) })).toMatch(/is not usable in a URL/);
    });
  });

  describe('normalize', () => {
    function normalize(
      payload: string,
      options: Partial<HmacEndpointOptions> = {},
      headers: Record<string, string> = {},
    ) {
      return notificationsOf(provider(options).normalize(delivery(payload, headers)))[0];
    }

    it('reads id, type and order id from the default paths', () => {
      expect(normalize(PAYMENT)).toEqual({
        eventId: 'evt_77',
        type: 'payment.succeeded',
        nativeType: 'payment.succeeded',
        merchantRef: 'order-42',
        paymentRef: undefined,
        amount: undefined,
        currency: undefined,
        status: undefined,
        occurredAt: undefined,
        payload: JSON.parse(PAYMENT),
      });
    });

    it('reads every configured path', () => {
      const payload = JSON.stringify({
        event: { uid: 42, name: 'charge.paid' },
        payment: {
          ref: 'pay_5',
          order: 'A-1',
          total: 1500,
          cur: 'usd',
          state: 'paid',
          at: '2024-01-02T03:04:05Z',
        },
      });
      const result = normalize(payload, {
        kind: 'acme',
        eventIdPath: 'event.uid',
        typePath: 'event.name',
        paymentRefPath: 'payment.ref',
        merchantRefPath: 'payment.order',
        amountPath: 'payment.total',
        currencyPath: 'payment.cur',
        statusPath: 'payment.state',
        occurredAtPath: 'payment.at',
      });
      expect(result).toMatchObject({
        eventId: '42',
        type: 'acme:charge.paid',
        nativeType: 'charge.paid',
        paymentRef: 'pay_5',
        merchantRef: 'A-1',
        amount: 1500,
        currency: 'USD',
        status: 'paid',
        occurredAt: new Date('2024-01-02T03:04:05Z'),
      });
    });

    it('reads Unix seconds at occurredAtPath and indexes into arrays', () => {
      const payload = JSON.stringify({ created: NOW, items: [{ order: 'o-1' }] });
      const result = normalize(payload, {
        occurredAtPath: 'created',
        merchantRefPath: 'items.0.order',
      });
      expect(result.occurredAt).toEqual(new Date(NOW * 1000));
      expect(result.merchantRef).toBe('o-1');
    });

    it('prefers the event id and type headers over the paths (GitHub style)', () => {
      const options = {
        eventIdHeader: 'X-GitHub-Delivery',
        typeHeader: 'X-GitHub-Event',
        trustUnsignedHeaders: true,
        kind: 'github',
      };
      const headers = { 'x-github-delivery': '72d3162e-cc78-11e3', 'x-github-event': 'push' };
      expect(normalize(PAYMENT, options, headers)).toMatchObject({
        eventId: '72d3162e-cc78-11e3',
        type: 'github:push',
        nativeType: 'push',
      });
      expect(normalize(PAYMENT, options, {})).toMatchObject({
        eventId: 'evt_77',
        type: 'payment.succeeded',
      });
    });

    it('never takes a normalized type from an unsigned header, even when trusted', () => {
      const options = { typeHeader: 'x-event', trustUnsignedHeaders: true };
      const body = JSON.stringify({ id: 'e1', type: 'refund.succeeded' });
      expect(normalize(body, options, { 'x-event': 'payment.succeeded' })).toMatchObject({
        type: 'hmac:payment.succeeded',
        nativeType: 'payment.succeeded',
      });
      expect(normalize(body, options, {})).toMatchObject({ type: 'refund.succeeded' });
    });

    it('falls back to the SHA-256 of the raw body when there is no event id', () => {
      const payload = JSON.stringify({ status: 'done' });
      const expected = `sha256:${createHash('sha256').update(payload).digest('hex')}`;
      expect(normalize(payload).eventId).toBe(expected);
      expect(normalize(payload, { eventIdPath: 'missing.deeper' }).eventId).toBe(expected);
    });

    it('calls a delivery without type "unknown"', () => {
      expect(normalize(JSON.stringify({ id: 'e1' }))).toMatchObject({
        type: 'hmac:unknown',
        nativeType: 'unknown',
      });
    });

    it('never follows a path into the prototype', () => {
      const payload = JSON.stringify({ id: 'e1' });
      expect(
        normalize(payload, { merchantRefPath: 'constructor.name' }).merchantRef,
      ).toBeUndefined();
      expect(normalize(payload, { eventIdPath: '__proto__' }).eventId).toMatch(/^sha256:/);
    });

    it('leaves out optional fields of the wrong type', () => {
      const payload = JSON.stringify({ id: 'e1', amount: '9.90', cur: 3, state: {}, at: 'never' });
      const result = normalize(payload, {
        amountPath: 'amount',
        currencyPath: 'cur',
        statusPath: 'state',
        occurredAtPath: 'at',
      });
      expect(result).toMatchObject({
        amount: undefined,
        currency: undefined,
        status: undefined,
        occurredAt: undefined,
      });
    });

    it.each([
      ['not JSON', 'Hello, World!'],
      ['a JSON array', '[1,2]'],
      ['an object event id', JSON.stringify({ id: { value: 1 } })],
      ['an empty event id', JSON.stringify({ id: '' })],
      ['a boolean type', JSON.stringify({ id: 'e1', type: true })],
    ])('throws WebhookPayloadError for a body that is %s', (_label, body) => {
      expect(() => normalize(body)).toThrow(WebhookPayloadError);
    });
  });

  describe('signHmac', () => {
    it('produces the documented GitHub vector', () => {
      expect(
        signHmac({ payload: GITHUB.payload, secret: GITHUB.secret, ...GITHUB_OPTIONS }),
      ).toEqual({
        'x-hub-signature-256': GITHUB.signature,
      });
    });

    it.each([
      ['defaults', {}],
      ['GitHub style', GITHUB_OPTIONS],
      ['base64', { encoding: 'base64' as const, signatureHeader: 'X-Sig' }],
      ['timestamped', { timestampHeader: 'X-Timestamp', signaturePrefix: 'v1=' }],
    ])('is accepted by an endpoint with the same options (%s)', (_label, options) => {
      const headers = signHmac({ payload: PAYMENT, secret: SECRET, timestamp: NOW, ...options });
      expect(() => provider(options).verify(delivery(PAYMENT, headers))).not.toThrow();
    });

    it('signs `${timestamp}.` + payload when a timestamp header is set', () => {
      const headers = signHmac({
        payload: PAYMENT,
        secret: SECRET,
        timestamp: NOW,
        timestampHeader: 'X-Timestamp',
      });
      expect(headers).toEqual({
        'x-timestamp': String(NOW),
        'x-signature': hex(`${NOW}.${PAYMENT}`),
      });
    });
  });
});
