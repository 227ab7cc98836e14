import { safeJson, safeLogValue, safeText, shortText } from './safe-text';

describe('safeText', () => {
  it.each([
    ['line\nforged', 'line\\nforged'],
    ['\r\t\u0000\u0007\b', '\\r\\t\\x00\\x07\\x08'],
    ['\u001b[31mred\u001b[0m', '\\x1b[31mred\\x1b[0m'],
    ['osc \u001b]8;;http://x\u0007link', 'osc \\x1b]8;;http://x\\x07link'],
    ['csi \u009b2J del \u007f', 'csi \\x9b2J del \\x7f'],
    ['bidi \u202eevil\u202c \u2066x\u2069', 'bidi \\u202eevil\\u202c \\u2066x\\u2069'],
    ['sep \u2028\u2029', 'sep \\u2028\\u2029'],
    [
      'zw \u200b\u200c\u200d wj \u2060 bom \ufeff shy \u00ad cgj \u034f',
      'zw \\u200b\\u200c\\u200d wj \\u2060 bom \\ufeff shy \\xad cgj \\u034f',
    ],
    ['evt_1\u200b', 'evt_1\\u200b'],
    ['plain ümlaut ☕ text', 'plain ümlaut ☕ text'],
  ])('writes control characters visibly: %j', (input, expected) => {
    expect(safeText(input)).toBe(expected);
  });

  it('masks card numbers, also where an escape sequence touches them', () => {
    expect(safeText('\u00004111111111111111\u001b')).toBe('\\x00411111******1111\\x1b');
    expect(safeText('pan_5555555555554444\n')).toBe('pan_555555******4444\\n');
  });

  it.each([
    ['4242 4242 4242 4242', '424242******4242'],
    ['4242-4242-4242-4242', '424242******4242'],
    ['amex 3782 822463 10005', 'amex 378282*****0005'],
    ['4242\u200b424242424242', '424242******4242'],
    ['card 4\u00ad2\u2060424242\ufeff42424242.', 'card 424242******4242.'],
    [
      '\uff14\uff12\uff14\uff12\uff14\uff12\uff14\uff12\uff14\uff12\uff14\uff12\uff14\uff12\uff14\uff12',
      '424242******4242',
    ],
    [
      '\uff14\uff12\uff14\uff12\u3000\uff14\uff12\uff14\uff12\u3000\uff14\uff12\uff14\uff12\u3000\uff14\uff12\uff14\uff12',
      '424242******4242',
    ],
    ['4242\u00a04242\u00a04242\u00a04242', '424242******4242'],
    ['4242 \u200b4242 4242 4242', '424242******4242'],
    ['cvv=\u200b123', 'cvv=***'],
  ])(
    'masks card numbers grouped, split by invisible characters or in full-width digits: %j',
    (input, expected) => {
      expect(safeText(input)).toBe(expected);
    },
  );

  it('leaves the text around a masked number as it was, invisible characters escaped', () => {
    expect(safeText('order \uff14\uff12 \u200bpan 4242\u200b424242424242 x\u200b')).toBe(
      'order \uff14\uff12 \\u200bpan 424242******4242 x\\u200b',
    );
    expect(safeText('id 4242\u200b424242424241')).toBe('id 4242\\u200b424242424241');
  });

  it('keeps line feeds when asked, and nothing else', () => {
    expect(safeText('{\n  "a": "\u001b[2J"\r\n}', { keepLineFeeds: true })).toBe(
      '{\n  "a": "\\x1b[2J"\\r\n}',
    );
  });

  it('turns non-strings into text', () => {
    expect(safeText(4111111111111111)).toBe('411111******1111');
    expect(safeText(null)).toBe('null');
  });
});

describe('safeJson', () => {
  it('masks strings and escapes what JSON leaves raw, so parsing gives the masked value', () => {
    const value = {
      id: 'evt\u001b[31m\u009b\u202e\u200b',
      pan: 'x4111\u200b111111111111',
      n: 1,
    };
    const json = safeJson(value, 2);
    // eslint-disable-next-line no-control-regex -- looking for raw control characters
    expect(json).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202e\u200b]/);
    expect(JSON.parse(json)).toEqual({
      id: 'evt\u001b[31m\u009b\u202e\u200b',
      pan: 'x411111******1111',
      n: 1,
    });
  });
});

describe('safeLogValue', () => {
  it('makes every string of an object safe, keys included, and keeps other values', () => {
    const value = safeLogValue({
      eventId: 'evt\n1',
      ids: ['4111111111111111'],
      nested: { ['\u001b']: true, count: 3 },
      ['__proto__']: 'x',
    });
    expect(value).toEqual({
      eventId: 'evt\\n1',
      ids: ['411111******1111'],
      nested: { ['\\x1b']: true, count: 3 },
      ['__proto__']: 'x',
    });
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
  });

  it('writes an error as its name and message', () => {
    expect(safeLogValue(new TypeError('bad\n4111111111111111'))).toBe(
      'TypeError: bad\\n411111******1111',
    );
  });
});

describe('shortText', () => {
  it('keeps a short value whole, made safe', () => {
    expect(shortText('job\n1')).toBe('job\\n1');
  });

  it('cuts a long value and says how long it was', () => {
    const text = shortText(`j${'x'.repeat(1 << 20)}`);
    expect(text).toBe(`j${'x'.repeat(199)}… (${(1 << 20) + 1} characters)`);
  });

  it('masks a card number before cutting, so none is half shown', () => {
    const text = shortText(`${'a'.repeat(190)}4242424242424242`);
    expect(text).toBe(`${'a'.repeat(190)}424242****… (206 characters)`);
  });
});
