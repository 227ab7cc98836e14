import { redact } from './redact';

describe('redact', () => {
  it.each([
    ['card 4111111111111111 declined', 'card 411111******1111 declined'],
    ['pan=4111 1111 1111 1111', 'pan=411111******1111'],
    ['{"pan":"5555-5555-5555-4444"}', '{"pan":"555555******4444"}'],
    [
      '19 digits 6011000990139424 and 3530111333300000',
      '19 digits 601100******9424 and 353011******0000',
    ],
    ['pan_4111111111111111', 'pan_411111******1111'],
    ['card4111111111111111x', 'card411111******1111x'],
    ['ord-4111111111111111-2', 'ord-411111******1111-2'],
    ['4111 1111 1111 1111 2025', '411111******1111 2025'],
    ['amex 3782-822463-10005', 'amex 378282*****0005'],
    ['two 4111111111111111 5555 5555 5555 4444', 'two 411111******1111 555555******4444'],
  ])('masks Luhn-valid card numbers: %s', (input, expected) => {
    expect(redact(input)).toBe(expected);
  });

  it.each([
    ['4242\u200b4242\u200c4242\u200d4242', '424242******4242'],
    ['pan=4242\u20604242\ufeff4242\u00ad4242', 'pan=424242******4242'],
    ['4242\u200e4242\u202e42424242', '424242******4242'],
    ['4242 \u200b4242 4242 4242', '424242******4242'],
    [
      '\uff14\uff11\uff11\uff11\uff11\uff11\uff11\uff11\uff11\uff11\uff11\uff11\uff11\uff11\uff11\uff11',
      '411111******1111',
    ],
    [
      '\uff14\uff12\uff14\uff12\uff0d\uff14\uff12\uff14\uff12\uff0d\uff14\uff12\uff14\uff12\uff0d\uff14\uff12\uff14\uff12',
      '424242******4242',
    ],
    [
      '{"pan":"4242\u200b424242424242"} cvc=\u200b\uff11\uff12\uff13',
      '{"pan":"424242******4242"} cvc=***',
    ],
    ['x\u200b 4242\u200b424242424242 \u200by', 'x\u200b 424242******4242 \u200by'],
  ])(
    'masks card numbers through invisible characters and full-width digits: %j',
    (input, expected) => {
      expect(redact(input)).toBe(expected);
    },
  );

  it.each([
    'order \uff11\uff12\uff13 failed \u200b',
    'amount 4111\u200b111111111112',
    'id 1234\u200b5678-1234-1232-1234-123456789012',
  ])('leaves other text with invisible characters or full-width digits as it was: %j', (input) => {
    expect(redact(input)).toBe(input);
  });

  it.each([
    'order 1234567890123 failed',
    'PaymentId 13660',
    'timestamp 1764400000000',
    'amount 4111111111111112',
    'run 41111111111111110000',
    'id 12345678-1234-1232-1234-123456789012',
  ])('leaves numbers that are not card numbers alone: %s', (input) => {
    expect(redact(input)).toBe(input);
  });

  it.each([
    ['{"cvv":"123","amount":100}', '{"cvv":"***","amount":100}'],
    ['cvc=4321&x=1', 'cvc=***&x=1'],
    ["security_code: '987'", "security_code: '***'"],
    ['CVV2=000', 'CVV2=***'],
  ])('masks CVV-like fields: %s', (input, expected) => {
    expect(redact(input)).toBe(expected);
  });

  it('keeps a trace id whole, and still masks a card number beside it', () => {
    // The trace id's digits 4111111111111111 pass the Luhn check.
    const traceId = 'ab4111111111111111cdef0123456789';
    expect(redact(`traceId=${traceId} pan=4111111111111111`)).toBe(
      `traceId=${traceId} pan=411111******1111`,
    );
    expect(redact(`00-${traceId}-00f067aa0ba902b7-01`)).toBe(`00-${traceId}-00f067aa0ba902b7-01`);
    // Not a trace id: longer, upper case, or touching a letter.
    expect(redact('x4111111111111111cdef0123456789abc')).toContain('411111******1111');
    expect(redact('AB4111111111111111CDEF0123456789')).toContain('411111******1111');
    expect(redact(`_${traceId}`)).toContain('411111******1111');
    expect(redact(`${traceId}_`)).toContain('411111******1111');
    expect(redact(`[${traceId}]`)).toBe(`[${traceId}]`);
  });
});
