import fc from 'fast-check';
import { isBase64Body, storedBodyBytes, storedBodyText } from './stored-body';

describe('storedBodyText', () => {
  it('stores UTF-8 text without NUL as it is', () => {
    const body = '{"id":"evt_1","description":"Заказ №1042 😀","bell":"\\u0007"}';
    expect(storedBodyText(Buffer.from(body))).toBe(body);
    expect(storedBodyText(body)).toBe(body);
    expect(storedBodyText(Buffer.alloc(0))).toBe('');
  });

  it('stores a body with a NUL byte, bytes that are not UTF-8 or its own prefix as base64', () => {
    expect(storedBodyText(Buffer.from('mdOrder=a\u0000b'))).toBe('base64:bWRPcmRlcj1hAGI=');
    expect(storedBodyText(Buffer.from([0x7b, 0xff, 0x7d]))).toBe('base64:e/99');
    expect(storedBodyText('base64:e30=')).toBe(
      `base64:${Buffer.from('base64:e30=').toString('base64')}`,
    );
    expect(isBase64Body(storedBodyText('a\u0000'))).toBe(true);
    expect(isBase64Body(storedBodyText('{}'))).toBe(false);
  });

  it('reads every body back byte for byte, and never stores a NUL', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.uint8Array({ maxLength: 512 }),
          fc.string({ unit: 'binary', maxLength: 256 }).map((text) => Buffer.from(text)),
          fc.constantFrom('base64:', 'base64', 'base64:x').map((text) => Buffer.from(text)),
        ),
        (bytes) => {
          const body = Buffer.from(bytes);
          const stored = storedBodyText(body);
          expect(stored).not.toContain('\u0000');
          expect(storedBodyBytes(stored).equals(body)).toBe(true);
        },
      ),
      { numRuns: 2000 },
    );
  });
});
