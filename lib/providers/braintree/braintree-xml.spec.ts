import { braintreeSdk } from '../../spec-support/braintree-sdk';
import { parseXml, toPlainData, XmlElement, XmlSyntaxError } from './braintree-xml';
import { plainChildrenXml, plainDataToXml } from './braintree-xml-writer';

function refusal(text: string, limits?: Parameters<typeof parseXml>[1]): string {
  try {
    parseXml(text, limits);
  } catch (error) {
    expect(error).toBeInstanceOf(XmlSyntaxError);
    return (error as Error).message;
  }
  throw new Error('expected the document to be refused');
}

const sdk = braintreeSdk('v4ndq314c2s5c28r', '93b78bc88be90d93ac282e50ae569fdd');

describe('parseXml', () => {
  it('reads every sample notification the official SDK makes', () => {
    for (const kind of sdk.kinds) {
      const { bt_payload: payload } = sdk.sampleNotification(kind, 'id_42');
      const root = parseXml(Buffer.from(payload, 'base64').toString('utf8'));
      expect(root.name).toBe('notification');
      expect(root.children.find((c) => c.name === 'kind')?.text).toBe(kind);
    }
  });

  it('reads elements, both quote styles, self-closing tags, the declaration and entities', () => {
    const root = parseXml(
      `<?xml version="1.0" encoding="UTF-8"?>\n<a x="1" y='2'>\n  <b>R&amp;D &lt;&gt; &quot;&apos; &#233;&#x1F600;</b>\n  <c nil="true"/>\n</a>\n`,
    );
    expect(root).toEqual<XmlElement>({
      name: 'a',
      attributes: { x: '1', y: '2' },
      text: '',
      children: [
        { name: 'b', attributes: {}, children: [], text: 'R&D <> "\' é😀' },
        { name: 'c', attributes: { nil: 'true' }, children: [], text: '' },
      ],
    });
  });

  it('keeps characters XML 1.0 would not, the payload being signed data', () => {
    expect(parseXml('<a>\u0000\u0007\u2028</a>').text).toBe('\u0000\u0007\u2028');
  });

  it.each([
    ['a document type', '<!DOCTYPE a [<!ENTITY e "x">]><a>&e;</a>'],
    ['an entity it does not know', '<a>&e;</a>'],
    ['an external entity reference', '<a>&xxe;</a>'],
    ['a bare ampersand', '<a>R&D</a>'],
    ['a comment', '<a><!-- hidden --></a>'],
    ['a CDATA section', '<a><![CDATA[x]]></a>'],
    ['a processing instruction', '<a><?php echo 1 ?></a>'],
    ['a surrogate character reference', '<a>&#xD800;</a>'],
    ['a character reference beyond Unicode', '<a>&#x110000;</a>'],
    ['a mismatched closing tag', '<a><b></a></b>'],
    ['an unclosed element', '<a><b>'],
    ['two roots', '<a/><b/>'],
    ['text around the root', 'x<a/>'],
    ['mixed text and elements', '<a>text<b/></a>'],
    ['an unquoted attribute', '<a x=1/>'],
    ['a repeated attribute', '<a x="1" x="2"/>'],
    ['"<" in an attribute', '<a x="<"/>'],
    ['an empty document', ''],
  ])('refuses %s', (_label, text) => {
    expect(refusal(text)).toMatch(/at character \d+/);
  });

  it('refuses deep nesting before it recurses further', () => {
    const deep = '<a>'.repeat(10_000) + '</a>'.repeat(10_000);
    expect(refusal(deep)).toMatch(/deeper than 32 levels/);
    expect(refusal('<a><a><a></a></a></a>', { maxDepth: 2, maxElements: 10 })).toMatch(
      /deeper than 2/,
    );
  });

  it('refuses more elements than allowed, and reads a large flat document in linear time', () => {
    expect(refusal(`<a>${'<b/>'.repeat(10_001)}</a>`)).toMatch(/more than 10000 elements/);
    const started = Date.now();
    // NOTE: about 1 MiB, the default maxBodyBytes, of attributes and text on one element.
    const large = `<a ${Array.from({ length: 50_000 }, (_, i) => `k${i}="v"`).join(' ')}>${'x'.repeat(400_000)}</a>`;
    expect(Object.keys(parseXml(large).attributes)).toHaveLength(50_000);
    expect(Date.now() - started).toBeLessThan(2_000);
  });
});

describe('toPlainData and plainDataToXml', () => {
  it('reads nil, arrays, repeated names and keeps "__proto__" as data', () => {
    const data = toPlainData(
      parseXml(
        '<s><id>x</id><transactions type="array"><transaction><id>1</id></transaction>' +
          '<transaction><id>2</id></transaction></transactions><n nil="true"/>' +
          '<__proto__>p</__proto__><r>1</r><r>2</r></s>',
      ),
    ) as Record<string, unknown>;
    expect(data).toEqual({
      id: 'x',
      transactions: [{ id: '1' }, { id: '2' }],
      n: null,
      ['__proto__']: 'p',
      r: ['1', '2'],
    });
    expect(Object.getPrototypeOf(data)).toBe(Object.prototype);
  });

  it('writes what it reads back', () => {
    const subject = {
      transaction: { id: 'cwn1ah7f', 'order-id': 'R&D <1>', refunds: ['a', 'b'], none: null },
    };
    const xml = `<subject>${plainChildrenXml(subject)}</subject>`;
    expect(toPlainData(parseXml(xml))).toEqual(subject);
    expect(() => plainDataToXml('not a name', 'x')).toThrow(TypeError);
    expect(() => plainChildrenXml(['x'])).toThrow(/must be an object/);
  });
});
