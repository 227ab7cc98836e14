import { createHash } from 'node:crypto';
import {
  bodyDigest,
  canonicalJson,
  parseIdempotencyKey,
  requestFingerprint,
} from './request-fingerprint';

const sha256 = (text: string | Buffer) => createHash('sha256').update(text).digest('hex');

describe('parseIdempotencyKey', () => {
  it('reads a bare key and a structured-field string', () => {
    expect(parseIdempotencyKey('8e03978e-40d5-43e8-bc93-6894a57f9324')).toBe(
      '8e03978e-40d5-43e8-bc93-6894a57f9324',
    );
    expect(parseIdempotencyKey('"8e03978e-40d5-43e8-bc93-6894a57f9324"')).toBe(
      '8e03978e-40d5-43e8-bc93-6894a57f9324',
    );
    expect(parseIdempotencyKey('  key-1  ')).toBe('key-1');
    expect(parseIdempotencyKey('k'.repeat(255))).toBe('k'.repeat(255));
  });

  it('treats a missing or empty header as no key', () => {
    expect(parseIdempotencyKey(undefined)).toBeUndefined();
    expect(parseIdempotencyKey('')).toBeUndefined();
    expect(parseIdempotencyKey('   ')).toBeUndefined();
  });

  it.each([
    ['longer than 255 characters', 'k'.repeat(256)],
    ['with a space inside', 'key one'],
    ['with non-ASCII characters', 'ключ'],
    ['with a quote inside', 'a"b'],
    ['an empty quoted string', '""'],
  ])('marks a key %s as malformed', (_label, value) => {
    expect(parseIdempotencyKey(value)).toBeNull();
  });

  it('marks two headers as malformed and reads a single-element list', () => {
    expect(parseIdempotencyKey(['a', 'b'])).toBeNull();
    expect(parseIdempotencyKey(['a'])).toBe('a');
  });
});

describe('canonicalJson', () => {
  it('sorts object keys at every level and keeps array order', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: 1, y: 2 }], c: null } })).toBe(
      '{"a":{"c":null,"d":[3,{"y":2,"z":1}]},"b":1}',
    );
  });

  it('drops undefined fields as JSON.stringify does', () => {
    expect(canonicalJson({ a: undefined, b: 'x' })).toBe('{"b":"x"}');
    expect(canonicalJson([undefined])).toBe('[null]');
  });
});

describe('requestFingerprint', () => {
  const raw = Buffer.from('{"amount": 1999, "currency": "USD"}');

  it('is the SHA-256 of method, path with query and the SHA-256 of the raw body', () => {
    const fingerprint = requestFingerprint({
      method: 'post',
      originalUrl: '/orders?source=web',
      rawBody: raw,
      body: { amount: 1999, currency: 'USD' },
    });
    expect(fingerprint).toBe(sha256(`POST\n/orders?source=web\n${sha256(raw)}`));
  });

  it('uses the canonical JSON of the parsed body when the raw body is not kept', () => {
    const a = bodyDigest({ body: { amount: 1999, currency: 'USD' } });
    const b = bodyDigest({ body: { currency: 'USD', amount: 1999 } });
    expect(a).toBe(b);
    expect(a).toBe(sha256('{"amount":1999,"currency":"USD"}'));
  });

  it('differs for another method, path, query or body', () => {
    const base = { method: 'POST', url: '/orders', rawBody: raw };
    const fingerprints = [
      requestFingerprint(base),
      requestFingerprint({ ...base, method: 'PUT' }),
      requestFingerprint({ ...base, url: '/orders/1/refund' }),
      requestFingerprint({ ...base, url: '/orders?x=1' }),
      requestFingerprint({ ...base, rawBody: Buffer.from('{"amount": 2000, "currency": "USD"}') }),
    ];
    expect(new Set(fingerprints).size).toBe(fingerprints.length);
  });
});
