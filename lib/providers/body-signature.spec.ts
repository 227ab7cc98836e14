import { createHmac } from 'node:crypto';
import { WebhookVerificationError } from '../core/webhook-errors';
import { assertBodySignature, BodySignatureHeader } from './body-signature';
import { InboundWebhook } from './webhook-provider.interface';

const BODY = Buffer.from('{"event":"payment.captured","amount":1999}');

const HEX: BodySignatureHeader = {
  name: 'X-Test-Signature',
  algorithm: 'sha256',
  encoding: 'hex',
  shape: '64 hex digits (HMAC-SHA256)',
  mismatch: 'X-Test-Signature does not match the payload and the secret',
};

function request(headers: InboundWebhook['headers'], rawBody: Buffer = BODY): InboundWebhook {
  return { rawBody, headers, receivedAt: new Date() };
}

function refusal(action: () => void): Pick<WebhookVerificationError, 'reason' | 'message'> {
  try {
    action();
  } catch (error) {
    if (error instanceof WebhookVerificationError) {
      return { reason: error.reason, message: error.message };
    }
    throw error;
  }
  throw new Error('expected a WebhookVerificationError');
}

const sign = (
  algorithm: string,
  secret: string,
  text: string | Buffer,
  encoding: 'hex' | 'base64',
) => createHmac(algorithm, secret).update(text).digest(encoding);

describe('assertBodySignature', () => {
  it('accepts the hex HMAC-SHA256 of the raw body, in either case, under any listed secret', () => {
    const signature = sign('sha256', 'new', BODY, 'hex');
    for (const value of [signature, signature.toUpperCase(), ` ${signature} `]) {
      expect(() =>
        assertBodySignature(request({ 'x-test-signature': value }), HEX, ['old', 'new']),
      ).not.toThrow();
    }
  });

  it('signs the raw bytes as they arrived, even when they are not valid UTF-8', () => {
    const body = Buffer.from([0x7b, 0xff, 0xfe, 0x7d]);
    const signature = sign('sha256', 'k', body, 'hex');
    expect(() =>
      assertBodySignature(request({ 'x-test-signature': signature }, body), HEX, ['k']),
    ).not.toThrow();
  });

  it('says the header is missing when it is absent or blank', () => {
    for (const headers of [{}, { 'x-test-signature': '  ' }]) {
      expect(refusal(() => assertBodySignature(request(headers), HEX, ['k']))).toEqual({
        reason: 'missing_signature',
        message: 'Missing X-Test-Signature header',
      });
    }
  });

  it.each([
    ['base64 instead of hex', sign('sha256', 'k', BODY, 'base64')],
    ['a SHA-512 digest', sign('sha512', 'k', BODY, 'hex')],
    ['a prefixed value', `sha256=${sign('sha256', 'k', BODY, 'hex')}`],
  ])('refuses %s as malformed, naming the expected shape', (_, value) => {
    expect(
      refusal(() => assertBodySignature(request({ 'x-test-signature': value }), HEX, ['k'])),
    ).toEqual({
      reason: 'bad_signature',
      message: 'Malformed X-Test-Signature header: expected 64 hex digits (HMAC-SHA256)',
    });
  });

  it('refuses a well-formed signature under another secret with the given text', () => {
    const signature = sign('sha256', 'other', BODY, 'hex');
    expect(
      refusal(() => assertBodySignature(request({ 'x-test-signature': signature }), HEX, ['k'])),
    ).toEqual({ reason: 'bad_signature', message: HEX.mismatch });
  });

  it('refuses upper-case hex as malformed when the provider only sends lower case', () => {
    const header = { ...HEX, lowerCaseOnly: true, shape: '64 lower-case hex digits' };
    const signature = sign('sha256', 'k', BODY, 'hex');
    expect(() =>
      assertBodySignature(request({ 'x-test-signature': signature }), header, ['k']),
    ).not.toThrow();
    expect(
      refusal(() =>
        assertBodySignature(request({ 'x-test-signature': signature.toUpperCase() }), header, [
          'k',
        ]),
      ),
    ).toEqual({
      reason: 'bad_signature',
      message: 'Malformed X-Test-Signature header: expected 64 lower-case hex digits',
    });
  });

  it('checks 128 hex digits of HMAC-SHA512', () => {
    const header: BodySignatureHeader = { ...HEX, algorithm: 'sha512', shape: '128 hex digits' };
    const signature = sign('sha512', 'k', BODY, 'hex');
    expect(() =>
      assertBodySignature(request({ 'x-test-signature': signature }), header, ['k']),
    ).not.toThrow();
    const short = sign('sha256', 'k', BODY, 'hex');
    expect(
      refusal(() => assertBodySignature(request({ 'x-test-signature': short }), header, ['k'])),
    ).toEqual({
      reason: 'bad_signature',
      message: 'Malformed X-Test-Signature header: expected 128 hex digits',
    });
  });

  it('checks padded base64 of the prefix and the body, compared as sent', () => {
    const header: BodySignatureHeader = {
      ...HEX,
      encoding: 'base64',
      shape: '44 characters of base64',
    };
    const url = 'https://shop.example/webhooks/square';
    const signature = sign('sha256', 'k', Buffer.concat([Buffer.from(url), BODY]), 'base64');
    expect(() =>
      assertBodySignature(request({ 'x-test-signature': signature }), header, ['k'], url),
    ).not.toThrow();
    // Without the prefix the same header is a signature of other bytes.
    expect(
      refusal(() => assertBodySignature(request({ 'x-test-signature': signature }), header, ['k'])),
    ).toEqual({ reason: 'bad_signature', message: HEX.mismatch });
    const unpadded = signature.slice(0, -1);
    expect(
      refusal(() =>
        assertBodySignature(request({ 'x-test-signature': unpadded }), header, ['k'], url),
      ).message,
    ).toBe('Malformed X-Test-Signature header: expected 44 characters of base64');
  });

  it('accepts padded base64 of HMAC-SHA512 (88 characters, two of them padding)', () => {
    const header: BodySignatureHeader = { ...HEX, algorithm: 'sha512', encoding: 'base64' };
    const signature = sign('sha512', 'k', BODY, 'base64');
    expect(signature).toHaveLength(88);
    expect(() =>
      assertBodySignature(request({ 'x-test-signature': signature }), header, ['k']),
    ).not.toThrow();
  });
});
