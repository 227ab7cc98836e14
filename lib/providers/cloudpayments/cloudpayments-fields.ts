import { toMinorUnits } from '../../core/minor-units';
import { WebhookPayloadError } from '../../core/webhook-errors';
import { parseFormBody } from '../form-body';
import { JsonObject, parseJsonObject, toIdentifier } from '../parse-payload';

/** How a CloudPayments notification is named in errors. */
export const WHAT = 'CloudPayments notification';

/** `YYYY-MM-DD HH:mm:ss` (or with a `T`, fractions and a `Z`): CloudPayments writes UTC times. */
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2}):(\d{2})(?:\.\d+)?Z?$/;
const PLAIN_DECIMAL = /^\d+(?:\.\d+)?$/;

/**
 * Whether the body is JSON: CloudPayments sends either format, as the site's notification
 * settings say; a form body starts with a field name, never with `{`.
 */
export function isJsonBody(rawBody: Buffer): boolean {
  for (const byte of rawBody) {
    if (byte === 0x20 || byte === 0x09 || byte === 0x0a || byte === 0x0d) continue;
    return byte === 0x7b;
  }
  return false;
}

/**
 * The notification's parameters, from a JSON object or a form body.
 * @throws WebhookPayloadError when the body is neither.
 */
export function readNotification(rawBody: Buffer): JsonObject {
  return isJsonBody(rawBody) ? parseJsonObject(rawBody, WHAT) : parseFormBody(rawBody, WHAT);
}

/**
 * The form body as CloudPayments signs it for X-Content-HMAC: the same fields, URL-decoded, as
 * `name=value` joined by `&`. Undefined when it would not tell the fields apart (a decoded name
 * holding `&` or `=`, a decoded value holding `&`): then the decoded text could stand for other
 * fields than the ones the endpoint reads, so only the signature of the raw bytes counts.
 */
export function decodedFormText(rawBody: Buffer): Buffer | undefined {
  if (isJsonBody(rawBody)) {
    return undefined;
  }
  let fields: Record<string, string>;
  try {
    fields = parseFormBody(rawBody, WHAT);
  } catch {
    return undefined;
  }
  const entries = Object.entries(fields);
  const ambiguous = entries.some(
    ([name, value]) => name.includes('&') || name.includes('=') || value.includes('&'),
  );
  if (ambiguous) {
    return undefined;
  }
  const text = Buffer.from(entries.map(([name, value]) => `${name}=${value}`).join('&'), 'utf8');
  return text.equals(rawBody) ? undefined : text;
}

/** A parameter as text: a string as sent, a number or boolean of a JSON body as JSON writes it. */
export function textOf(fields: JsonObject, name: string): string | undefined {
  const value = Object.hasOwn(fields, name) ? fields[name] : undefined;
  if (typeof value === 'string') {
    return value.length > 0 ? value : undefined;
  }
  if (typeof value === 'number' && Number.isFinite(value)) {
    return String(value);
  }
  return typeof value === 'boolean' ? String(value) : undefined;
}

/**
 * An id parameter (`TransactionId`, `Id`): a non-empty string, or an integer JSON carries exactly.
 * @throws WebhookPayloadError when it is missing.
 */
export function requireId(fields: JsonObject, name: string): string {
  const id = toIdentifier(Object.hasOwn(fields, name) ? fields[name] : undefined);
  if (id === undefined) {
    throw new WebhookPayloadError(`${WHAT} is not valid: ${name} is missing or empty`);
  }
  return id;
}

/**
 * `Amount` in minor units of `currency`; undefined when either does not read as one (a JSON
 * number is taken as the decimal it prints as: `10.5` is `'10.5'`).
 */
export function minorUnitsOf(fields: JsonObject, currency: string | undefined): number | undefined {
  const amount = textOf(fields, 'Amount');
  if (amount === undefined || currency === undefined || !PLAIN_DECIMAL.test(amount)) {
    return undefined;
  }
  return toMinorUnits(amount, currency);
}

/** `DateTime` (UTC, `2014-08-09 11:49:42`), when it reads as a time. */
export function dateTimeOf(fields: JsonObject): Date | undefined {
  const match = DATE_TIME.exec(textOf(fields, 'DateTime') ?? '');
  if (match === null) {
    return undefined;
  }
  const [year, month, day, hour, minute, second] = match.slice(1).map(Number);
  const date = new Date(Date.UTC(year, month - 1, day, hour, minute, second));
  return date.getUTCMonth() === month - 1 && date.getUTCDate() === day ? date : undefined;
}
