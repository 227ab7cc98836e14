import { createHmac } from 'node:crypto';
import { hmacSha256, hmacSha512 } from './hmac';

describe('hmacSha256', () => {
  it('equals node:crypto over the concatenated parts', () => {
    const body = Buffer.from('{"amount":100}');
    const expected = createHmac('sha256', 'key')
      .update(Buffer.concat([Buffer.from('1700000000.'), body]))
      .digest();
    expect(hmacSha256('key', ['1700000000.', body])).toEqual(expected);
  });

  it('signs raw bytes that are not valid UTF-8 without altering them', () => {
    const body = Buffer.from([0x7b, 0xff, 0xfe, 0x7d]);
    const expected = createHmac('sha256', 'key').update(body).digest('hex');
    expect(hmacSha256('key', [body]).toString('hex')).toBe(expected);
    // A decode/re-encode round trip would replace the bytes and change the MAC.
    expect(hmacSha256('key', [body.toString('utf8')]).toString('hex')).not.toBe(expected);
  });

  it('takes a string key as UTF-8 and a byte key as it is', () => {
    const key = Buffer.from([0x00, 0x80, 0xff]);
    expect(hmacSha256(key, ['x'])).toEqual(createHmac('sha256', key).update('x').digest());
    expect(hmacSha256('ключ', ['x'])).toEqual(
      createHmac('sha256', Buffer.from('ключ', 'utf8')).update('x').digest(),
    );
  });
});

describe('hmacSha512', () => {
  it('gives the RFC 4231 test case 2 digest', () => {
    expect(hmacSha512('Jefe', ['what do ya ', 'want for nothing?']).toString('hex')).toBe(
      '164b7a7bfcf819e2e395fbe73b56e0a387bd64222e831fd610270cd7ea250554' +
        '9758bf75c05a994a6d034f65f8f0e6fdcaeab1a34d4a6b4b636e070a38bce737',
    );
  });

  it('signs raw bytes that are not valid UTF-8 without altering them', () => {
    const body = Buffer.from([0x7b, 0xff, 0xfe, 0x7d]);
    expect(hmacSha512('key', [body])).toEqual(createHmac('sha512', 'key').update(body).digest());
  });
});
