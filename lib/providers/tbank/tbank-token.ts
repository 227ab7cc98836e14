import { createHash } from 'node:crypto';

/**
 * The T-Bank (Tinkoff) acquiring `Token`: the signature of API requests and of notifications.
 *
 * Takes every top-level field except `Token` whose value is a string, number or boolean (nested
 * objects and arrays such as `Receipt` and `DATA` are left out, and so are `null` values), adds
 * `Password`, sorts the pairs by key, joins the values alone (numbers in their JSON form,
 * booleans as `true`/`false`) and returns the SHA-256 of that UTF-8 string as lower-case hex.
 * A plain hash, not an HMAC: the password is part of the hashed text.
 *
 * Compare a received token with `constantTimeEqual` from the core helpers, never with `===`.
 *
 * @param fields the request or notification object; its `Token` and `Password`, if any, are
 * ignored.
 * @param password the terminal password (Личный кабинет → Магазины → Терминалы).
 * @returns 64 lower-case hex characters.
 * @example
 * tbankToken({ TerminalKey: 'MerchantTerminalKey', PaymentId: '13660' }, password)
 */
export function tbankToken(fields: Readonly<Record<string, unknown>>, password: string): string {
  const pairs: [string, string][] = [['Password', password]];
  for (const [key, value] of Object.entries(fields)) {
    if (key === 'Token' || key === 'Password') {
      continue;
    }
    const text = scalarText(value);
    if (text !== undefined) {
      pairs.push([key, text]);
    }
  }
  // NOTE: code-unit order, which is the ASCII order T-Bank sorts its (ASCII) field names by.
  pairs.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return createHash('sha256')
    .update(pairs.map(([, text]) => text).join(''), 'utf8')
    .digest('hex');
}

function scalarText(value: unknown): string | undefined {
  if (typeof value === 'string') {
    return value;
  }
  if (typeof value === 'number') {
    // NOTE: JSON's text for the number, which is what the sender hashed.
    return Number.isFinite(value) ? JSON.stringify(value) : undefined;
  }
  if (typeof value === 'boolean') {
    return value ? 'true' : 'false';
  }
  return undefined;
}
