import { WebhookPayloadError } from '../core/webhook-errors';

/** A parsed JSON object. */
export type JsonObject = Record<string, unknown>;

// NOTE: fatal, so a body that is not UTF-8 is refused instead of parsed with U+FFFD in it.
const UTF8 = new TextDecoder('utf-8', { fatal: true });
/** Deepest nesting of arrays and objects accepted; real notifications stay far below it. */
const MAX_JSON_DEPTH = 64;

/** True for a plain JSON object (not an array, not null). */
export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Parses a verified raw body as a JSON object.
 * @param what names the body in the error, e.g. `'Stripe event body'`.
 * @throws WebhookPayloadError when the body is not UTF-8 JSON with an object at the top.
 */
export function parseJsonObject(rawBody: Buffer, what: string): JsonObject {
  let text: string;
  try {
    text = UTF8.decode(rawBody);
  } catch {
    throw new WebhookPayloadError(`${what} is not valid UTF-8`);
  }
  if (nestingDepth(text) > MAX_JSON_DEPTH) {
    throw new WebhookPayloadError(`${what} nests deeper than ${MAX_JSON_DEPTH} levels`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new WebhookPayloadError(`${what} is not valid JSON`);
  }
  if (!isJsonObject(parsed)) {
    throw new WebhookPayloadError(`${what} is not a JSON object`);
  }
  return parsed;
}

/** How deeply arrays and objects nest in JSON text (brackets inside strings do not count). */
function nestingDepth(text: string): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) {
        i += 1; // NOTE: skips the escaped character, so \" does not end the string.
      } else if (c === 0x22) {
        inString = false;
      }
    } else if (c === 0x22) {
      inString = true;
    } else if (c === 0x7b || c === 0x5b) {
      depth += 1;
      deepest = Math.max(deepest, depth);
    } else if (c === 0x7d || c === 0x5d) {
      depth -= 1;
    }
  }
  return deepest;
}

/**
 * A non-empty string as is, or a safe integer as its decimal text; otherwise undefined.
 * NOTE: a number beyond 2^53 has already lost digits in JSON.parse, so it is refused rather
 * than turned into a different id.
 */
export function toIdentifier(value: unknown): string | undefined {
  if (typeof value === 'string') {
    return value.length > 0 ? value : undefined;
  }
  if (typeof value === 'number' && Number.isSafeInteger(value)) {
    return String(value);
  }
  return undefined;
}

/** A non-empty string property, if there is one. */
export function readString(source: JsonObject | undefined, key: string): string | undefined {
  const value = source?.[key];
  return typeof value === 'string' && value.length > 0 ? value : undefined;
}

/** A safe-integer property (amounts in minor units), if there is one. */
export function readInteger(source: JsonObject | undefined, key: string): number | undefined {
  const value = source?.[key];
  return typeof value === 'number' && Number.isSafeInteger(value) ? value : undefined;
}

/** An object property, if there is one. */
export function readObject(source: JsonObject | undefined, key: string): JsonObject | undefined {
  const value = source?.[key];
  return isJsonObject(value) ? value : undefined;
}

/** An ISO 4217 code upper-cased, if `value` is a non-empty string. */
export function toCurrency(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim().length > 0
    ? value.trim().toUpperCase()
    : undefined;
}

/** A `Date` from an ISO 8601 string, if it parses. */
export function parseIsoDate(value: unknown): Date | undefined {
  if (typeof value !== 'string' || value.length === 0) {
    return undefined;
  }
  const millis = Date.parse(value);
  return Number.isNaN(millis) ? undefined : new Date(millis);
}

/** A `Date` from Unix seconds, if `value` is a safe integer. */
export function fromUnixSeconds(value: unknown): Date | undefined {
  return typeof value === 'number' && Number.isSafeInteger(value)
    ? new Date(value * 1000)
    : undefined;
}
