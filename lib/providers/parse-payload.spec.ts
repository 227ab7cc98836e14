import { WebhookPayloadError } from '../core/webhook-errors';
import { parseJsonObject } from './parse-payload';

const nested = (depth: number) => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);

describe('parseJsonObject', () => {
  it('parses an object nested up to 64 levels', () => {
    expect(parseJsonObject(Buffer.from(nested(64)), 'body')).toHaveProperty('a');
  });

  it('refuses deeper nesting with a payload error, not a stack overflow', () => {
    expect(() => parseJsonObject(Buffer.from(nested(65)), 'Stripe event body')).toThrow(
      new WebhookPayloadError('Stripe event body nests deeper than 64 levels'),
    );
    expect(() => parseJsonObject(Buffer.from(nested(100_000)), 'body')).toThrow(
      WebhookPayloadError,
    );
  });

  it('does not count brackets inside strings, escaped quotes included', () => {
    const text = JSON.stringify({ note: '{'.repeat(200) + '\\"' + '['.repeat(200) });
    expect(parseJsonObject(Buffer.from(text), 'body')).toEqual(JSON.parse(text));
  });

  it('refuses non-UTF-8, non-JSON and non-object bodies', () => {
    expect(() => parseJsonObject(Buffer.from([0xff, 0xfe]), 'body')).toThrow(/not valid UTF-8/);
    expect(() => parseJsonObject(Buffer.from('{"a":'), 'body')).toThrow(/not valid JSON/);
    expect(() => parseJsonObject(Buffer.from('[1]'), 'body')).toThrow(/not a JSON object/);
  });
});
