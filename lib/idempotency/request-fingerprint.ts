import { createHash } from 'node:crypto';
import { IDEMPOTENCY_KEY_PATTERN } from './idempotency.constants';

/** The parts of an Express or Fastify request the fingerprint reads. */
export interface FingerprintedRequest {
  method?: string;
  url?: string;
  originalUrl?: string;
  rawBody?: Buffer;
  body?: unknown;
}

/**
 * The value of an `Idempotency-Key` header: the key, `undefined` when the header is absent or
 * empty, `null` when it is malformed. Accepts a bare token (`Idempotency-Key: 4f0c…`, as Stripe
 * expects) and the IETF draft's structured-field string (`Idempotency-Key: "4f0c…"`).
 */
export function parseIdempotencyKey(
  header: string | string[] | undefined,
): string | undefined | null {
  if (header === undefined) {
    return undefined;
  }
  if (Array.isArray(header)) {
    // NOTE: two Idempotency-Key headers cannot say which one the client meant.
    return header.length === 1 ? parseIdempotencyKey(header[0]) : null;
  }
  let value = header.trim();
  if (value === '') {
    return undefined;
  }
  if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) {
    value = value.slice(1, -1);
  }
  return IDEMPOTENCY_KEY_PATTERN.test(value) && !value.includes('"') && !value.includes('\\')
    ? value
    : null;
}

/**
 * JSON with object keys sorted at every level, so two bodies that differ only in key order
 * fingerprint alike when no raw body is available.
 */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) {
    return `[${value.map((item) => canonicalJson(item ?? null)).join(',')}]`;
  }
  if (value !== null && typeof value === 'object' && !Buffer.isBuffer(value)) {
    const json = (value as { toJSON?: () => unknown }).toJSON;
    if (typeof json === 'function') {
      return canonicalJson(json.call(value));
    }
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, item]) => item !== undefined && typeof item !== 'function')
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** SHA-256 (hex) of the body: the raw bytes when the app keeps them, else its canonical JSON. */
export function bodyDigest(request: FingerprintedRequest): string {
  const hash = createHash('sha256');
  if (Buffer.isBuffer(request.rawBody)) {
    hash.update(request.rawBody);
  } else if (Buffer.isBuffer(request.body)) {
    hash.update(request.body);
  } else if (typeof request.body === 'string') {
    hash.update(request.body, 'utf8');
  } else if (request.body !== undefined && request.body !== null) {
    hash.update(canonicalJson(request.body), 'utf8');
  }
  return hash.digest('hex');
}

/**
 * SHA-256 (hex) of what makes two requests "the same" for an idempotency key: the method, the
 * path with its query string, and the body digest ({@link bodyDigest}).
 */
export function requestFingerprint(request: FingerprintedRequest): string {
  const method = (request.method ?? '').toUpperCase();
  const path = request.originalUrl ?? request.url ?? '';
  return createHash('sha256')
    .update(`${method}\n${path}\n${bodyDigest(request)}`, 'utf8')
    .digest('hex');
}
