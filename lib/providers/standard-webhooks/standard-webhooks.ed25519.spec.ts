import { KeyObject, createPrivateKey, generateKeyPairSync, sign } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { WebhookConfigurationError } from '../../core/webhook-errors';
import { generateStandardWebhooksKeyPair, signStandardWebhook } from './standard-webhooks.signer';
import {
  StandardWebhooksEndpointOptions,
  standardWebhooksEndpoint,
} from './standard-webhooks.provider';
import { InboundWebhook, WebhookProvider } from '../webhook-provider.interface';
import { nonCanonicalBase64 } from '../../spec-support/base64-variants';
import { rejection } from '../../spec-support/rejection';

// RFC 8032, section 7.1, TEST 1: an Ed25519 key pair and the signature of the empty message.
const RFC8032 = {
  secretKey: '9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60',
  publicKey: 'd75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a',
  emptyMessageSignature:
    'e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b',
};
const hexToBase64 = (hex: string) => Buffer.from(hex, 'hex').toString('base64');
const hexToBase64url = (hex: string) => Buffer.from(hex, 'hex').toString('base64url');
const RFC_PUBLIC_KEY = `whpk_${hexToBase64(RFC8032.publicKey)}`;
const RFC_SIGNING_KEY = `whsk_${hexToBase64(RFC8032.secretKey)}`;
// NOTE: loaded as a JWK, not through the package's whsk_ decoding, so the test stays independent.
const RFC_PRIVATE_KEY = createPrivateKey({
  key: {
    kty: 'OKP',
    crv: 'Ed25519',
    d: hexToBase64url(RFC8032.secretKey),
    x: hexToBase64url(RFC8032.publicKey),
  },
  format: 'jwk',
});

const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const NOW = 1_700_000_000;
const MSG_ID = 'msg_2KWPBgLlAfxdpx2AI54pPJ85f4W';
const PAYMENT = JSON.stringify({
  type: 'payment.succeeded',
  data: { orderId: 'order-42', amount: 1250, currency: 'eur' },
});

/** A Node-generated key pair, with its public key serialized as the spec says. */
function nodeKeyPair(): { privateKey: KeyObject; publicKey: string } {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const raw = Buffer.from(publicKey.export({ format: 'jwk' }).x as string, 'base64url');
  return { privateKey, publicKey: `whpk_${raw.toString('base64')}` };
}

/** `v1a,<base64>` over the spec's signed content `${id}.${timestamp}.${body}`, by node:crypto. */
function v1a(privateKey: KeyObject, body: string, id = MSG_ID, timestamp = NOW): string {
  const content = Buffer.from(`${id}.${timestamp}.${body}`, 'utf8');
  return `v1a,${sign(null, content, privateKey).toString('base64')}`;
}

function delivery(body: string, signature: string, id = MSG_ID, timestamp = NOW): InboundWebhook {
  return {
    rawBody: Buffer.from(body, 'utf8'),
    headers: {
      'webhook-id': id,
      'webhook-timestamp': String(timestamp),
      'webhook-signature': signature,
    },
    receivedAt: new Date(NOW * 1000),
  };
}

function provider(options: Partial<StandardWebhooksEndpointOptions>): WebhookProvider {
  return standardWebhooksEndpoint({ name: 'acme', ...options }).provider;
}

const official = (body: string) => new Webhook(SECRET).sign(MSG_ID, new Date(NOW * 1000), body);

describe('standardWebhooksEndpoint with v1a (Ed25519) signatures', () => {
  describe('verify', () => {
    it('accepts a v1a signature by the RFC 8032 key, verified with its whpk_ public key', () => {
      expect(sign(null, Buffer.alloc(0), RFC_PRIVATE_KEY).toString('hex')).toBe(
        RFC8032.emptyMessageSignature,
      );
      const request = delivery(PAYMENT, v1a(RFC_PRIVATE_KEY, PAYMENT));
      expect(() => provider({ publicKey: RFC_PUBLIC_KEY }).verify(request)).not.toThrow();
    });

    it('accepts a v1a signature by a key generated with node:crypto', () => {
      const { privateKey, publicKey } = nodeKeyPair();
      const request = delivery(PAYMENT, v1a(privateKey, PAYMENT));
      expect(() => provider({ publicKey }).verify(request)).not.toThrow();
    });

    it('accepts any configured scheme that verifies, in any order among other entries', () => {
      const both = provider({ secret: SECRET, publicKey: RFC_PUBLIC_KEY });
      const stale = v1a(nodeKeyPair().privateKey, PAYMENT);
      for (const header of [
        official(PAYMENT),
        v1a(RFC_PRIVATE_KEY, PAYMENT),
        `${official(PAYMENT)} ${v1a(RFC_PRIVATE_KEY, PAYMENT)}`,
        `${stale} v2,AAAA ${v1a(RFC_PRIVATE_KEY, PAYMENT)}`,
        `${stale} ${official(PAYMENT)}`,
      ]) {
        expect(() => both.verify(delivery(PAYMENT, header))).not.toThrow();
      }
    });

    it('accepts either public key while two are configured (rotation)', () => {
      const current = nodeKeyPair();
      const rotating = provider({ publicKey: [RFC_PUBLIC_KEY, current.publicKey] });
      for (const privateKey of [RFC_PRIVATE_KEY, current.privateKey]) {
        expect(() => rotating.verify(delivery(PAYMENT, v1a(privateKey, PAYMENT)))).not.toThrow();
      }
    });

    it.each([
      ['a changed body', delivery(PAYMENT.replace('1250', '9250'), v1a(RFC_PRIVATE_KEY, PAYMENT))],
      ['a changed webhook-id', delivery(PAYMENT, v1a(RFC_PRIVATE_KEY, PAYMENT), 'msg_other')],
      ['a changed timestamp', delivery(PAYMENT, v1a(RFC_PRIVATE_KEY, PAYMENT), MSG_ID, NOW + 1)],
      ['another key', delivery(PAYMENT, v1a(nodeKeyPair().privateKey, PAYMENT))],
    ])('rejects a v1a signature with %s', (_label, request) => {
      const error = rejection(() => provider({ publicKey: RFC_PUBLIC_KEY }).verify(request));
      expect(error).toMatchObject({ name: 'WebhookVerificationError', reason: 'bad_signature' });
      expect(error.message).toMatch(/No v1a signature .* matches the payload and the public key/);
    });

    it('checks only the schemes it has keys for', () => {
      const v1Only = delivery(PAYMENT, official(PAYMENT));
      expect(rejection(() => provider({ publicKey: RFC_PUBLIC_KEY }).verify(v1Only))).toMatchObject(
        {
          reason: 'bad_signature',
          message: 'Malformed webhook-signature header: no v1a,<base64> signature',
        },
      );
      const v1aOnly = delivery(PAYMENT, v1a(RFC_PRIVATE_KEY, PAYMENT));
      expect(rejection(() => provider({ secret: SECRET }).verify(v1aOnly))).toMatchObject({
        reason: 'bad_signature',
        message: 'Malformed webhook-signature header: no v1,<base64> signature',
      });
    });

    it('refuses a v1a signature that is not 64 bytes', () => {
      const short = `v1a,${Buffer.alloc(32, 1).toString('base64')}`;
      expect(
        rejection(() => provider({ publicKey: RFC_PUBLIC_KEY }).verify(delivery(PAYMENT, short))),
      ).toMatchObject({ reason: 'bad_signature' });
    });

    it('still refuses a delivery outside the timestamp window after a valid v1a signature', () => {
      const request = {
        ...delivery(PAYMENT, v1a(RFC_PRIVATE_KEY, PAYMENT)),
        receivedAt: new Date((NOW + 301) * 1000),
      };
      expect(
        rejection(() => provider({ publicKey: RFC_PUBLIC_KEY }).verify(request)),
      ).toMatchObject({ reason: 'timestamp_out_of_window' });
    });
  });

  describe('canonical base64', () => {
    it.each([
      ['v1', { secret: SECRET }, official(PAYMENT)],
      ['v1a', { publicKey: RFC_PUBLIC_KEY }, v1a(RFC_PRIVATE_KEY, PAYMENT)],
    ] as const)(
      'accepts only the canonical spelling of a %s signature',
      (version, options, entry) => {
        const endpoint = provider(options);
        expect(() => endpoint.verify(delivery(PAYMENT, entry))).not.toThrow();
        const encoded = entry.slice(`${version},`.length);
        for (const [label, variant] of nonCanonicalBase64(encoded)) {
          const request = delivery(PAYMENT, `${version},${variant}`);
          expect([label, rejection(() => endpoint.verify(request))]).toMatchObject([
            label,
            { reason: 'bad_signature' },
          ]);
        }
      },
    );
  });

  describe('configuration', () => {
    function configError(options: Partial<StandardWebhooksEndpointOptions>): string {
      const error = rejection(() =>
        standardWebhooksEndpoint({ name: 'acme', ...options } as StandardWebhooksEndpointOptions),
      );
      expect(error.name).toBe(WebhookConfigurationError.name);
      return error.message;
    }

    it('needs a secret, a public key, or both', () => {
      expect(configError({})).toMatch(/no usable secret or publicKey: set secret .* or publicKey/);
      expect(() => provider({ publicKey: RFC_PUBLIC_KEY })).not.toThrow();
      expect(() => provider({ secret: SECRET, publicKey: [RFC_PUBLIC_KEY] })).not.toThrow();
    });

    it.each([
      ['secret', { secret: RFC_SIGNING_KEY }],
      ['publicKey', { publicKey: RFC_SIGNING_KEY }],
      ['a rotation list', { publicKey: [RFC_PUBLIC_KEY, RFC_SIGNING_KEY] }],
    ])('refuses a whsk_ signing key given as %s, naming the fix', (_label, options) => {
      const message = configError(options);
      expect(message).toMatch(/is a whsk_ signing key, which must stay with the sender/);
      expect(message).toMatch(/set publicKey to the matching whpk_ public key/);
      expect(message).not.toContain(hexToBase64(RFC8032.secretKey));
    });

    it('names the entry of a rotation list that is a whsk_ key', () => {
      expect(configError({ publicKey: [RFC_PUBLIC_KEY, RFC_SIGNING_KEY] })).toMatch(
        /publicKey\[1\] is a whsk_/,
      );
    });

    it('refuses a key given in the other scheme’s option, naming where it goes', () => {
      expect(configError({ secret: RFC_PUBLIC_KEY })).toMatch(
        /secret is a whpk_ public key: move it to publicKey/,
      );
      expect(configError({ publicKey: SECRET })).toMatch(
        /publicKey is a whsec_ secret: move it to secret/,
      );
    });

    it.each([
      ['no prefix', hexToBase64(RFC8032.publicKey)],
      ['31 bytes', `whpk_${Buffer.alloc(31, 7).toString('base64')}`],
      ['33 bytes', `whpk_${Buffer.alloc(33, 7).toString('base64')}`],
      ['unpadded base64', RFC_PUBLIC_KEY.replace(/=+$/, '')],
      ['whitespace inside', `${RFC_PUBLIC_KEY.slice(0, 20)} ${RFC_PUBLIC_KEY.slice(20)}`],
      ['nothing after the prefix', 'whpk_'],
    ])('refuses a malformed public key (%s) and names the fix', (_label, publicKey) => {
      expect(configError({ publicKey })).toMatch(
        /publicKey is not a whpk_ public key .* copy the public key exactly as the sender shows it/,
      );
    });

    it('refuses a blank or non-string public key', () => {
      expect(configError({ publicKey: ' ' })).toMatch(/no usable secret or publicKey/);
      expect(configError({ publicKey: [] })).toMatch(/no usable secret or publicKey/);
      expect(configError({ publicKey: [42 as unknown as string] })).toMatch(/no usable/);
    });
  });

  describe('signStandardWebhook with a privateKey', () => {
    it('signs the spec’s content with the whsk_ key, as node:crypto does', () => {
      const headers = signStandardWebhook({
        id: MSG_ID,
        payload: PAYMENT,
        privateKey: RFC_SIGNING_KEY,
        timestamp: NOW,
      });
      expect(headers).toEqual({
        'webhook-id': MSG_ID,
        'webhook-timestamp': String(NOW),
        'webhook-signature': v1a(RFC_PRIVATE_KEY, PAYMENT),
      });
    });

    it('takes a whsk_ key of private and public halves, and a KeyObject', () => {
      const both = `whsk_${hexToBase64(RFC8032.secretKey + RFC8032.publicKey)}`;
      for (const privateKey of [both, RFC_PRIVATE_KEY]) {
        const headers = signStandardWebhook({
          id: MSG_ID,
          payload: PAYMENT,
          privateKey,
          timestamp: NOW,
        });
        expect(headers['webhook-signature']).toBe(v1a(RFC_PRIVATE_KEY, PAYMENT));
      }
    });

    it.each([
      ['a whpk_ key', RFC_PUBLIC_KEY],
      ['unpadded base64', RFC_SIGNING_KEY.replace(/=+$/, '')],
      [
        'a public half of another key',
        `whsk_${hexToBase64(RFC8032.secretKey + RFC8032.secretKey)}`,
      ],
    ])('refuses %s', (_label, privateKey) => {
      expect(() => signStandardWebhook({ id: MSG_ID, payload: PAYMENT, privateKey })).toThrow(
        /signStandardWebhook: .*privateKey/,
      );
    });

    it('puts v1 before v1a when given both; the official verifier reads the v1 entry', () => {
      const headers = signStandardWebhook({
        id: MSG_ID,
        payload: PAYMENT,
        secret: SECRET,
        privateKey: RFC_SIGNING_KEY,
      });
      const [first, second] = headers['webhook-signature'].split(' ');
      expect(first).toMatch(/^v1,/);
      expect(second).toMatch(/^v1a,/);
      expect(new Webhook(SECRET).verify(PAYMENT, headers)).toEqual(JSON.parse(PAYMENT));
    });

    it('is accepted by an endpoint holding the public key of a generated key pair', () => {
      const { privateKey, publicKey } = generateStandardWebhooksKeyPair();
      expect(privateKey).toMatch(/^whsk_[A-Za-z0-9+/]{43}=$/);
      expect(publicKey).toMatch(/^whpk_[A-Za-z0-9+/]{43}=$/);
      const headers = signStandardWebhook({ id: MSG_ID, payload: PAYMENT, privateKey });
      const request = {
        rawBody: Buffer.from(PAYMENT),
        headers,
        receivedAt: new Date(Number(headers['webhook-timestamp']) * 1000),
      };
      expect(() => provider({ publicKey }).verify(request)).not.toThrow();
      expect(
        rejection(() => provider({ publicKey: RFC_PUBLIC_KEY }).verify(request)),
      ).toMatchObject({ reason: 'bad_signature' });
    });

    it('needs a secret or a private key', () => {
      expect(() => signStandardWebhook({ id: MSG_ID, payload: PAYMENT })).toThrow(
        /give a secret \(v1\), a privateKey \(v1a\), or both/,
      );
    });
  });
});
