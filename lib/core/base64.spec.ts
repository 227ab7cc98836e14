import { randomBytes } from 'node:crypto';
import { decodeCanonicalBase64 } from './base64';

describe('decodeCanonicalBase64', () => {
  it('decodes what Node encodes, for every tail length', () => {
    for (let length = 1; length <= 66; length += 1) {
      const bytes = randomBytes(length);
      expect(decodeCanonicalBase64(bytes.toString('base64'))).toEqual(bytes);
    }
  });

  it.each([
    ['the empty string', ''],
    ['missing padding', 'AQI'],
    ['missing one of two padding characters', 'AQ='],
    ['a non-zero unused bit', 'AQJ='],
    ['a non-zero unused bit before "=="', 'AR=='],
    ['a line break', 'AQID\nBAUG'],
    ['a space', 'AQID BAUG'],
    ['surrounding whitespace', ' AQI= '],
    ['the URL-safe alphabet', '-_-_'],
    ['a character outside the alphabet', 'AQI*'],
    ['padding in the middle', 'AQ==AQ=='],
    ['too much padding', 'A==='],
    ['only padding', '===='],
  ])('refuses %s', (_label, text) => {
    expect(decodeCanonicalBase64(text)).toBeUndefined();
  });
});
