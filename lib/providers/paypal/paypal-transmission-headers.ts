import { KeyObject, randomUUID, sign } from 'node:crypto';
import { crc32 } from '../../core/crc32';
import { WebhookVerificationError } from '../../core/webhook-errors';
import { InboundWebhook } from '../webhook-provider.interface';
import { PAYPAL_TEST_CERT_URL, PAYPAL_TEST_PRIVATE_KEY_PEM } from './paypal-test-certificate';

/** `PAYPAL-TRANSMISSION-ID`, lower-cased: which transmission (delivery attempt) this is. */
export const TRANSMISSION_ID_HEADER = 'paypal-transmission-id';
/** `PAYPAL-TRANSMISSION-TIME`, lower-cased: when PayPal sent it. */
export const TRANSMISSION_TIME_HEADER = 'paypal-transmission-time';
const TRANSMISSION_SIG_HEADER = 'paypal-transmission-sig';
/** The only `PAYPAL-AUTH-ALGO` PayPal signs with. */
export const AUTH_ALGO = 'SHA256withRSA';
const CERT_URL_HEADER = 'paypal-cert-url';
const AUTH_ALGO_HEADER = 'paypal-auth-algo';
const PAYPAL_DOMAIN = 'paypal.com';
// NOTE: where PayPal serves signing certificates, e.g. /v1/notifications/certs/CERT-360caa42-…
const CERT_PATH = /^\/v1\/notifications\/certs\/CERT-[A-Za-z0-9-]+$/;
const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?(?:[Zz]|[+-]\d{2}:\d{2})$/;
const MAX_SHOWN_URL = 200;

/** A URL as refusals show it: JSON-quoted, cut to 200 characters. */
export function shown(url: string): string {
  return JSON.stringify(url.length > MAX_SHOWN_URL ? `${url.slice(0, MAX_SHOWN_URL)}…` : url);
}

/** The transmission headers of a delivery, each present and trimmed. */
export interface TransmissionHeaders {
  readonly transmissionId: string;
  readonly transmissionTime: string;
  readonly signature: string;
  readonly certUrl: string;
  readonly authAlgo: string;
}

/** The transmission headers, or a `missing_signature` refusal naming the one missing. */
export function readTransmissionHeaders(request: InboundWebhook): TransmissionHeaders {
  const read = (name: string, display: string): string => {
    const value = request.headers[name]?.trim();
    if (value === undefined || value === '') {
      throw new WebhookVerificationError('missing_signature', `Missing ${display} header`);
    }
    return value;
  };
  return {
    signature: read(TRANSMISSION_SIG_HEADER, 'PAYPAL-TRANSMISSION-SIG'),
    transmissionId: read(TRANSMISSION_ID_HEADER, 'PAYPAL-TRANSMISSION-ID'),
    transmissionTime: read(TRANSMISSION_TIME_HEADER, 'PAYPAL-TRANSMISSION-TIME'),
    certUrl: read(CERT_URL_HEADER, 'PAYPAL-CERT-URL'),
    authAlgo: read(AUTH_ALGO_HEADER, 'PAYPAL-AUTH-ALGO'),
  };
}

/**
 * The certificate URL, if it is https on `paypal.com` or a host under it, with no credentials,
 * the default port, and PayPal's certificate path; anything else is refused before a request is
 * made, with a message naming what is wrong.
 */
export function checkCertUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new WebhookVerificationError(
      'bad_signature',
      `PAYPAL-CERT-URL ${shown(text)} is not a URL`,
    );
  }
  const host = url.hostname.toLowerCase();
  const problem =
    url.protocol !== 'https:'
      ? 'certificates are fetched only over https'
      : host !== PAYPAL_DOMAIN && !host.endsWith(`.${PAYPAL_DOMAIN}`)
        ? `its host ${JSON.stringify(host)} is not paypal.com or a host under it`
        : url.username !== '' || url.password !== '' || url.port !== ''
          ? 'it carries credentials or a port'
          : !CERT_PATH.test(url.pathname) || url.search !== '' || url.hash !== ''
            ? "its path is not PayPal's certificate path /v1/notifications/certs/CERT-…"
            : undefined;
  if (problem !== undefined) {
    throw new WebhookVerificationError(
      'bad_signature',
      `PAYPAL-CERT-URL ${shown(text)} is refused: ${problem}`,
    );
  }
  return url.href;
}

/** Milliseconds since the epoch of an RFC 3339 transmission time. */
export function parseTransmissionTime(text: string): number {
  const millis = RFC3339.test(text) ? Date.parse(text) : Number.NaN;
  if (Number.isNaN(millis)) {
    throw new WebhookVerificationError(
      'bad_signature',
      'Malformed PAYPAL-TRANSMISSION-TIME header: expected an RFC 3339 time such as 2024-05-12T18:14:14Z',
    );
  }
  return millis;
}

/**
 * What PayPal signs for a transmission: its id and time, the webhook id, and the CRC-32 of the
 * raw body, joined by `|`. The endpoint verifies and the signers sign this one string.
 */
export function transmissionMessage(
  transmissionId: string,
  transmissionTime: string,
  webhookId: string,
  body: Uint8Array | string,
): Buffer {
  return Buffer.from(
    `${transmissionId}|${transmissionTime}|${webhookId}|${String(crc32(body))}`,
    'utf8',
  );
}

/** What a PayPal transmission is signed with; defaults as `signPayPalDelivery()` documents. */
export interface TransmissionSigning {
  readonly webhookId: string;
  readonly privateKey?: string | KeyObject;
  readonly certUrl?: string;
  readonly transmissionId?: string;
  readonly transmissionTime?: Date | string;
}

/** `2024-05-12T18:14:14.123Z` → `2024-05-12T18:14:14Z`. */
function transmissionTimeText(time: Date | string | undefined): string {
  if (typeof time === 'string') return time;
  return (time ?? new Date()).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** The transmission headers PayPal sends `body` with: an RSA SHA-256 signature of its message. */
export function signedTransmissionHeaders(
  body: string,
  signing: TransmissionSigning,
): Record<string, string> {
  const transmissionId = signing.transmissionId ?? randomUUID();
  const transmissionTime = transmissionTimeText(signing.transmissionTime);
  const signature = sign(
    'sha256',
    transmissionMessage(transmissionId, transmissionTime, signing.webhookId, body),
    signing.privateKey ?? PAYPAL_TEST_PRIVATE_KEY_PEM,
  ).toString('base64');
  return {
    [AUTH_ALGO_HEADER]: AUTH_ALGO,
    [CERT_URL_HEADER]: signing.certUrl ?? PAYPAL_TEST_CERT_URL,
    [TRANSMISSION_ID_HEADER]: transmissionId,
    [TRANSMISSION_SIG_HEADER]: signature,
    [TRANSMISSION_TIME_HEADER]: transmissionTime,
  };
}
