import { WebhookPayloadError } from '../core/webhook-errors';
import { encodeFormBody, parseFormBody } from './form-body';

function parse(body: string | Buffer) {
  return parseFormBody(Buffer.isBuffer(body) ? body : Buffer.from(body, 'latin1'), 'Test body');
}

function failure(body: string | Buffer): string {
  try {
    parse(body);
  } catch (error) {
    expect(error).toBeInstanceOf(WebhookPayloadError);
    return (error as Error).message;
  }
  throw new Error('expected a WebhookPayloadError');
}

describe('parseFormBody', () => {
  it('reads fields by name', () => {
    expect(parse('mdOrder=06cf5599&operation=approved&orderNumber=2003&status=1')).toEqual({
      mdOrder: '06cf5599',
      operation: 'approved',
      orderNumber: '2003',
      status: '1',
    });
  });

  it('reads "+" as a space and decodes percent-encoded UTF-8', () => {
    expect(
      parse(
        'callbackCreationDate=Mon+Jan+31+21%3A46%3A52+UTC+2022&label=%D0%B7%D0%B0%D0%BA%D0%B0%D0%B7',
      ),
    ).toEqual({ callbackCreationDate: 'Mon Jan 31 21:46:52 UTC 2022', label: 'заказ' });
  });

  it('keeps an encoded "+" as a plus sign', () => {
    expect(parse('datetime=2011-07-01T09%3A00%3A00.000%2B04%3A00')).toEqual({
      datetime: '2011-07-01T09:00:00.000+04:00',
    });
  });

  it('accepts raw UTF-8 bytes', () => {
    expect(parse(Buffer.from('label=заказ-7', 'utf8'))).toEqual({ label: 'заказ-7' });
  });

  it('keeps empty values, reads a field without "=" as empty and skips empty segments', () => {
    expect(parse('&sender=&label&&amount=1=2&')).toEqual({ sender: '', label: '', amount: '1=2' });
  });

  it('gives an empty body no fields', () => {
    expect(parse('')).toEqual({});
  });

  it('keeps "__proto__" as an ordinary field', () => {
    const fields = parse('__proto__=x&a=1');
    expect(Object.getPrototypeOf(fields)).toBe(Object.prototype);
    expect(Object.keys(fields)).toEqual(['__proto__', 'a']);
    expect(fields['__proto__']).toBe('x');
  });

  it('refuses a field given twice, naming it', () => {
    expect(failure('status=1&amount=5&status=0')).toBe(
      'Test body has the field "status" more than once; every field must appear once',
    );
  });

  it('refuses a repeated name even when one spelling is percent-encoded', () => {
    expect(failure('status=1&st%61tus=0')).toMatch(/"status" more than once/);
  });

  it.each([
    ['a truncated escape', 'a=%4'],
    ['a non-hex escape', 'a=%zz'],
    ['an escape that is not UTF-8', 'a=%C3%28'],
    ['an encoded lone surrogate', 'a=%ED%A0%80'],
  ])('refuses %s', (_label, body) => {
    expect(failure(body)).toMatch(/^Test body is not valid form encoding/);
  });

  it('refuses raw bytes that are not UTF-8', () => {
    expect(failure(Buffer.from([0x61, 0x3d, 0xff]))).toBe('Test body is not valid UTF-8');
  });

  it('refuses a field without a name', () => {
    expect(failure('=1&a=2')).toBe('Test body has a field without a name');
  });
});

describe('encodeFormBody', () => {
  it('writes spaces as "+" and escapes what a form post escapes, in order', () => {
    expect(
      encodeFormBody({ b: 'Mon Jan 31', a: '2011-07-01T09:00:00.000+04:00', c: 'заказ&1' }),
    ).toBe(
      'b=Mon+Jan+31&a=2011-07-01T09%3A00%3A00.000%2B04%3A00&c=%D0%B7%D0%B0%D0%BA%D0%B0%D0%B7%261',
    );
  });

  it('round-trips through parseFormBody', () => {
    const fields = { label: 'order #7 / 50%', sender: '', amount: '300.00' };
    expect(parse(Buffer.from(encodeFormBody(fields)))).toEqual(fields);
  });
});
