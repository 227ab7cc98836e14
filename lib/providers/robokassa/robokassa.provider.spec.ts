import { createHash } from 'node:crypto';
import { WebhookConfigurationError } from '../../core/webhook-errors';
import { notificationsOf } from '../notifications';
import { InboundWebhook, WebhookProvider } from '../webhook-provider.interface';
import { rejection } from '../../spec-support/rejection';
import { robokassaFixtures } from './robokassa.fixtures';
import {
  RobokassaEndpointOptions,
  RobokassaHashAlgorithm,
  robokassaEndpoint,
} from './robokassa.provider';

const PASSWORD = 'securepass2';
const TEST_PASSWORD = 'testpass2';

/** The documented formula, written out with node:crypto. */
function signature(
  fields: Record<string, string>,
  password = PASSWORD,
  algorithm: RobokassaHashAlgorithm = 'md5',
): string {
  const shp = Object.keys(fields)
    .filter((name) => /^shp_/i.test(name))
    .sort()
    .map((name) => `:${name}=${fields[name]}`)
    .join('');
  return createHash(algorithm)
    .update(`${fields.OutSum}:${fields.InvId}:${password}${shp}`, 'utf8')
    .digest('hex')
    .toUpperCase();
}

function delivery(body: string): InboundWebhook {
  return { rawBody: Buffer.from(body, 'utf8'), headers: {}, receivedAt: new Date() };
}

function signed(
  fields: Record<string, string>,
  password = PASSWORD,
  algorithm: RobokassaHashAlgorithm = 'md5',
): InboundWebhook {
  const sig = signature(fields, password, algorithm);
  return delivery(new URLSearchParams({ ...fields, SignatureValue: sig }).toString());
}

function provider(options: Partial<RobokassaEndpointOptions> = {}): WebhookProvider {
  return robokassaEndpoint({ name: 'robokassa', password2: PASSWORD, ...options }).provider;
}

const RESULT = robokassaFixtures.result({ invId: '5', amount: 10000, shp: { item: '1' } });

describe('robokassaEndpoint', () => {
  describe('verify', () => {
    it('accepts the hash of OutSum:InvId:Password#2 (a vector computed outside Node)', () => {
      const fields = { OutSum: '100.000000', InvId: '5' };
      expect(signature(fields)).toBe('1CF90B964035DF7DD221EBCCEF94E63B');
      const body = 'OutSum=100.000000&InvId=5&SignatureValue=1CF90B964035DF7DD221EBCCEF94E63B';
      expect(() => provider().verify(delivery(body))).not.toThrow();
    });

    it('signs the Shp_ parameters sorted by name, decoded, after the password', () => {
      const body =
        'Shp_order=%D0%B7%D0%B0%D0%BA%D0%B0%D0%B7+7&OutSum=100.000000&InvId=5&Shp_item=1' +
        '&SignatureValue=BE24C942DF4944E435988BB916F1AE87';
      expect(() => provider().verify(delivery(body))).not.toThrow();
    });

    it('compares the hex in any case', () => {
      const body = 'OutSum=100.000000&InvId=5&SignatureValue=1cf90b964035df7dd221ebccef94e63b';
      expect(() => provider().verify(delivery(body))).not.toThrow();
    });

    it.each<RobokassaHashAlgorithm>(['sha1', 'sha256', 'sha384', 'sha512'])(
      'checks %s when the shop chose it',
      (algorithm) => {
        expect(() =>
          provider({ hashAlgorithm: algorithm }).verify(signed(RESULT, PASSWORD, algorithm)),
        ).not.toThrow();
        expect(
          rejection(() => provider().verify(signed(RESULT, PASSWORD, algorithm))),
        ).toMatchObject({
          reason: 'bad_signature',
          message: /Malformed SignatureValue: expected 32 hex digits \(md5\)/,
        });
      },
    );

    it('accepts either password while two are configured (rotation)', () => {
      const rotating = provider({ password2: ['other-pass', PASSWORD] });
      expect(() => rotating.verify(signed(RESULT))).not.toThrow();
      expect(() => rotating.verify(signed(RESULT, 'other-pass'))).not.toThrow();
    });

    it.each([
      ['OutSum', { OutSum: '1000.000000' }],
      ['InvId', { InvId: '6' }],
      ['a Shp_ parameter', { Shp_item: '2' }],
      ['an added Shp_ parameter', { Shp_extra: 'x' }],
    ])('rejects a notification whose %s changed after signing', (_label, change) => {
      const sig = signature(RESULT);
      const body = new URLSearchParams({ ...RESULT, ...change, SignatureValue: sig }).toString();
      expect(rejection(() => provider().verify(delivery(body)))).toMatchObject({
        name: 'WebhookVerificationError',
        reason: 'bad_signature',
      });
    });

    it('does not see a change of the unsigned fields (Fee, EMail, IncCurrLabel)', () => {
      const sig = signature(RESULT);
      const body = new URLSearchParams({
        ...RESULT,
        Fee: '0.00',
        EMail: 'other@example.com',
        SignatureValue: sig,
      }).toString();
      expect(() => provider().verify(delivery(body))).not.toThrow();
    });

    it('rejects a signature made with another password, without echoing it', () => {
      const error = rejection(() => provider().verify(signed(RESULT, 'wrongpass')));
      expect(error.reason).toBe('bad_signature');
      expect(error.message).toMatch(/password2/);
      expect(error.message).not.toContain(PASSWORD);
    });

    it('checks a test payment against testPassword2 only, and refuses it without one', () => {
      const test = robokassaFixtures.result({ test: true });
      expect(() =>
        provider({ testPassword2: TEST_PASSWORD }).verify(signed(test, TEST_PASSWORD)),
      ).not.toThrow();
      expect(
        rejection(() => provider({ testPassword2: TEST_PASSWORD }).verify(signed(test, PASSWORD))),
      ).toMatchObject({ reason: 'bad_signature', message: /testPassword2/ });
      expect(rejection(() => provider().verify(signed(test, PASSWORD)))).toMatchObject({
        reason: 'bad_signature',
        message: /IsTest=1.*no testPassword2/,
      });
      // A live notification with IsTest=1 added is checked against the test password, and fails.
      const flipped = delivery(
        new URLSearchParams({
          ...RESULT,
          IsTest: '1',
          SignatureValue: signature(RESULT),
        }).toString(),
      );
      expect(
        rejection(() => provider({ testPassword2: TEST_PASSWORD }).verify(flipped)),
      ).toMatchObject({
        reason: 'bad_signature',
      });
    });

    it.each([
      ['absent', 'OutSum=1.000000&InvId=5'],
      ['empty', 'OutSum=1.000000&InvId=5&SignatureValue='],
    ])('rejects a notification whose SignatureValue is %s as missing_signature', (_label, body) => {
      expect(rejection(() => provider().verify(delivery(body)))).toMatchObject({
        reason: 'missing_signature',
      });
    });

    it('refuses a notification without InvId as invalid', () => {
      expect(
        rejection(() =>
          provider().verify(delivery(`OutSum=1.000000&SignatureValue=${'A'.repeat(32)}`)),
        ),
      ).toMatchObject({ name: 'WebhookPayloadError', message: /InvId is missing/ });
    });
  });

  describe('configuration', () => {
    function configError(options: Partial<RobokassaEndpointOptions>): string {
      const error = rejection(() =>
        robokassaEndpoint({ name: 'robokassa', ...options } as RobokassaEndpointOptions),
      );
      expect(error.name).toBe(WebhookConfigurationError.name);
      return error.message;
    }

    it('answers GET and POST with OK and the notification’s InvId, as text', () => {
      const endpoint = robokassaEndpoint({ name: 'robokassa', password2: PASSWORD });
      expect(endpoint.acknowledgement).toEqual({
        status: 200,
        body: 'OK',
        contentType: 'text/plain; charset=utf-8',
      });
      expect(endpoint.provider.methods).toEqual(['GET', 'POST']);
      const notifications = notificationsOf(endpoint.provider.normalize(signed(RESULT)));
      expect(endpoint.provider.acknowledgementBody?.(notifications)).toBe('OK5');
    });

    it('requires password2 and refuses an unknown algorithm, currency or status', () => {
      expect(configError({})).toMatch(/no usable password2/);
      expect(
        configError({ password2: PASSWORD, hashAlgorithm: 'ripemd160' as RobokassaHashAlgorithm }),
      ).toMatch(/hashAlgorithm must be one of md5, sha1, sha256, sha384, sha512/);
      expect(configError({ password2: PASSWORD, currency: 'rubles' })).toMatch(/ISO 4217/);
      expect(configError({ password2: PASSWORD, acknowledgement: { status: 204 } })).toMatch(
        /Robokassa repeat the notification/,
      );
    });
  });

  describe('normalize', () => {
    it('reads a payment: InvId as key and references, OutSum in kopecks', () => {
      const result = notificationsOf(provider().normalize(signed(RESULT)))[0];
      expect(result).toMatchObject({
        eventId: '5',
        type: 'payment.succeeded',
        nativeType: 'result',
        paymentRef: '5',
        merchantRef: '5',
        amount: 10000,
        currency: 'RUB',
        status: undefined,
      });
      expect(result.occurredAtSigned).toBeUndefined();
      expect(result.payload).toMatchObject({ Shp_item: '1', InvId: '5' });
    });

    it('keeps the key of a retry, by GET or POST, and gives another invoice its own', () => {
      const post = signed(RESULT);
      const get = delivery(post.rawBody.toString());
      const key = (request: InboundWebhook) =>
        notificationsOf(provider().normalize(request))[0].eventId;
      expect(key(get)).toBe(key(post));
      expect(key(signed(robokassaFixtures.result({ invId: '6' })))).toBe('6');
    });

    it('reads OutSum in the configured currency, with its exponent', () => {
      const kzt = robokassaFixtures.result({ invId: '7', amount: 250000, currency: 'KZT' });
      expect(
        notificationsOf(provider({ currency: 'kzt' }).normalize(signed(kzt)))[0],
      ).toMatchObject({
        amount: 250000,
        currency: 'KZT',
      });
      const odd = { ...RESULT, OutSum: '10.005' };
      expect(notificationsOf(provider().normalize(signed(odd)))[0].amount).toBeUndefined();
    });

    it('marks a test payment', () => {
      const test = robokassaFixtures.result({ test: true });
      const result = notificationsOf(
        provider({ testPassword2: TEST_PASSWORD }).normalize(signed(test, TEST_PASSWORD)),
      )[0];
      expect(result).toMatchObject({ type: 'payment.succeeded', status: 'test' });
    });
  });
});
