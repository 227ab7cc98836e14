/** Text as XML writes it: `&`, `<`, `>` and quotes escaped, everything else as it is. */
export function escapeXml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

const ELEMENT_NAME = /^[A-Za-z_][A-Za-z0-9_.-]*$/;

/**
 * Plain data as Braintree's XML, the way `toPlainData()` reads it back: an object's keys are
 * elements, `null` is `nil="true"`, a list is `type="array"` with one element per item (named
 * by the key without its plural "s", `transactions` → `transaction`), anything else is text.
 * @throws TypeError for a key that is no XML element name.
 * @example plainDataToXml('order-id', 'order-42') // '<order-id>order-42</order-id>'
 */
export function plainDataToXml(name: string, value: unknown): string {
  if (!ELEMENT_NAME.test(name)) {
    throw new TypeError(`${JSON.stringify(name)} is not an XML element name`);
  }
  if (value === null || value === undefined) return `<${name} nil="true"/>`;
  if (Array.isArray(value)) {
    const item = name.endsWith('s') && name.length > 1 ? name.slice(0, -1) : 'item';
    return `<${name} type="array">${value.map((v) => plainDataToXml(item, v)).join('')}</${name}>`;
  }
  if (typeof value === 'object') {
    const children = Object.entries(value).map(([key, v]) => plainDataToXml(key, v));
    return `<${name}>${children.join('')}</${name}>`;
  }
  return `<${name}>${escapeXml(String(value))}</${name}>`;
}

/**
 * An object's entries as sibling elements, e.g. a notification's subject
 * (`{ transaction: { id: 'cwn1ah7f' } }`).
 * @throws TypeError when `value` is not an object, or for a key that is no element name.
 */
export function plainChildrenXml(value: unknown): string {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new TypeError('must be an object, e.g. { "transaction": { "id": "cwn1ah7f" } }');
  }
  return Object.entries(value)
    .map(([key, v]) => plainDataToXml(key, v))
    .join('');
}
