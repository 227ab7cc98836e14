import { WebhookConfigurationError } from '../core/webhook-errors';
import {
  providerStatusError,
  providerText,
  quoteReference,
  resolveApiUrl,
  resolveTimeoutMs,
} from './provider-http';

describe('resolveApiUrl', () => {
  it('uses the default and drops trailing slashes', () => {
    expect(resolveApiUrl('C', undefined, 'https://api.example.com/v3')).toBe(
      'https://api.example.com/v3',
    );
    expect(resolveApiUrl('C', 'http://127.0.0.1:4000/v2//', 'https://x')).toBe(
      'http://127.0.0.1:4000/v2',
    );
  });

  it('never quotes the value it refuses', () => {
    const create = () => resolveApiUrl('C', 'https://shop:hunter2@api.example.com', 'https://x');

    expect(create).toThrow(WebhookConfigurationError);
    expect(create).toThrow('must not carry credentials');
    expect(create).not.toThrow('hunter2');
  });
});

describe('resolveTimeoutMs', () => {
  it('defaults to 10000 and accepts whole positive milliseconds', () => {
    expect(resolveTimeoutMs('C', undefined)).toBe(10_000);
    expect(resolveTimeoutMs('C', 1)).toBe(1);
  });

  it('refuses a string', () => {
    expect(() => resolveTimeoutMs('C', '5000')).toThrow('got a string');
  });
});

describe('providerText', () => {
  it('removes secrets before cutting, so no prefix of a secret survives', () => {
    const secret = 's3cr3t-value';
    const text = `${'x'.repeat(195)}${secret}`;

    const safe = providerText(text, [secret]);

    expect(safe).not.toContain('s3cr');
    expect(safe).toMatch(/…$/);
    expect(safe!.length).toBeLessThanOrEqual(201);
  });

  it('removes the longest secret first when one contains another', () => {
    expect(providerText('key abcdef', ['abc', 'abcdef'])).toBe('key [redacted]');
  });

  it('replaces control characters, so a message stays on one line', () => {
    expect(providerText('line\r\nbreak\u0000', [])).toBe('line break');
  });

  it('ignores values that are not text', () => {
    expect(providerText({ a: 1 }, [])).toBeUndefined();
    expect(providerText('   ', [])).toBeUndefined();
    expect(providerText(42, [])).toBe('42');
  });
});

describe('providerStatusError', () => {
  it('names the provider, the subject, the HTTP status and the detail, without secrets', () => {
    const error = providerStatusError(
      { provider: 'Acme', subject: 'payment "p_1"', secrets: ['topsecret'], timeoutMs: 1 },
      'not_found',
      'the provider does not know it',
      { httpStatus: 404, detail: 'missing topsecret', hint: 'check the id' },
    );

    expect(error.message).toBe(
      'Acme status lookup of payment "p_1" failed: the provider does not know it ' +
        '(HTTP 404, missing [redacted]); check the id',
    );
    expect(error.httpStatus).toBe(404);
  });

  it('quotes references as JSON, cut to 100 characters', () => {
    expect(quoteReference('a"\nb')).toBe('"a\\"\\nb"');
    expect(quoteReference('x'.repeat(150))).toBe(`"${'x'.repeat(100)}…"`);
  });
});
