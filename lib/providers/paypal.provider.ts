import { X509Certificate, verify as verifySignature } from 'node:crypto';
import { IsNotEmpty, IsObject, IsOptional, IsString } from 'class-validator';
import { crc32 } from '../core/crc32';
import { toMinorUnits } from '../core/minor-units';
import { PaymentEventType } from '../core/payment-event-types';
import { assertTimestampWithinWindow } from '../core/timestamp-window';
import { WebhookConfigurationError, WebhookVerificationError } from '../core/webhook-errors';
import { defineEndpoint, plainTextAcknowledgement } from './define-endpoint';
import {
  JsonObject,
  isJsonObject,
  parseIsoDate,
  parseJsonObject,
  readObject,
  readString,
  toCurrency,
  validateEnvelope,
} from './parse-payload';
import {
  BaseEndpointOptions,
  InboundWebhook,
  NormalizedNotification,
  WebhookAcknowledgement,
  WebhookEndpoint,
  WebhookProvider,
} from './webhook-provider.interface';
import { ownValue } from '../core/own-value';

const KIND = 'paypal';
const TRANSMISSION_ID_HEADER = 'paypal-transmission-id';
const TRANSMISSION_TIME_HEADER = 'paypal-transmission-time';
const TRANSMISSION_SIG_HEADER = 'paypal-transmission-sig';
const CERT_URL_HEADER = 'paypal-cert-url';
const AUTH_ALGO_HEADER = 'paypal-auth-algo';
const AUTH_ALGO = 'SHA256withRSA';
const PAYPAL_DOMAIN = 'paypal.com';
const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?(?:[Zz]|[+-]\d{2}:\d{2})$/;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const CAPTURE_LINK = /\/v2\/payments\/captures\/([^/?#]+)$/;
const MAX_SHOWN_URL = 200;

/**
 * How far `PAYPAL-TRANSMISSION-TIME` may be from the receive time unless an endpoint says
 * otherwise: 4 days.
 *
 * NOTE: PayPal documents no window and does not say whether its retries (up to 25 over 3 days)
 * carry a new transmission time or the first one. Four days outlasts that retry horizon, so no
 * retry is ever refused for its age, and stays below the 7 days the inbox keeps event ids, so a
 * genuine delivery replayed inside the window is caught as a duplicate and one replayed later is
 * refused as out of window.
 */
export const PAYPAL_DEFAULT_TOLERANCE_SECONDS = 4 * 24 * 60 * 60;

/**
 * Answers with the PEM text of the X.509 certificate at a `PAYPAL-CERT-URL`. Called only with
 * URLs that passed the provider's check (https, a host that is `paypal.com` or under it).
 * A rejection refuses the delivery with a verification error (400); PayPal retries it.
 */
export type PayPalCertificateResolver = (url: string) => Promise<string>;

/** Options of `createPayPalCertificateResolver()`. */
export interface PayPalCertificateResolverOptions {
  /**
   * How long one certificate download may take, in milliseconds.
   * @default 5000
   */
  timeoutMs?: number;
  /**
   * How many certificates (by URL) stay cached; the least recently used is dropped first.
   * PayPal serves each certificate at its own URL, so a cached answer never goes stale.
   * @default 32
   */
  maxEntries?: number;
  /**
   * Largest certificate response accepted, in bytes.
   * @default 65536
   */
  maxBytes?: number;
}

/** Options of the PayPal protocol, shared by `paypalEndpoint()` and `PayPalWebhookProvider`. */
export interface PayPalProviderOptions {
  /**
   * The ID PayPal shows for this webhook (Developer Dashboard → Apps & Credentials → your app →
   * Webhooks, e.g. `'8PT597110X687430LKGECATA'`); it is part of the signed string, so a delivery
   * for another webhook does not verify. Webhooks Simulator events are signed with the literal
   * `'WEBHOOK_ID'`. Required.
   */
  webhookId: string;
  /**
   * Largest distance in seconds between `PAYPAL-TRANSMISSION-TIME` and the receive time, in
   * either direction; `0` switches the check off.
   * @default 345600 (4 days; see `PAYPAL_DEFAULT_TOLERANCE_SECONDS`)
   */
  tolerance?: number;
  /**
   * Fetches the signing certificate named in `PAYPAL-CERT-URL`. Tests inject one that answers
   * with a local certificate (see `PAYPAL_TEST_CERTIFICATE_PEM` in the testing entry point).
   * @default createPayPalCertificateResolver(): Node's fetch, 5 s timeout, no redirects, cached by URL
   */
  certificateResolver?: PayPalCertificateResolver;
}

/** Options of `paypalEndpoint()`. */
export interface PayPalEndpointOptions extends BaseEndpointOptions, PayPalProviderOptions {}

// NOTE: validated without @Type(): nested classes would need reflect-metadata loaded by the app.
class PayPalEventEnvelope {
  @IsString()
  @IsNotEmpty()
  id!: string;

  @IsString()
  @IsNotEmpty()
  event_type!: string;

  @IsObject()
  resource!: JsonObject;

  @IsOptional()
  @IsString()
  create_time?: string;
}

const EVENT_TYPES: Readonly<Record<string, PaymentEventType>> = {
  'PAYMENT.CAPTURE.COMPLETED': 'payment.succeeded',
  'PAYMENT.CAPTURE.DENIED': 'payment.failed',
  'PAYMENT.CAPTURE.DECLINED': 'payment.failed',
  'PAYMENT.CAPTURE.REFUNDED': 'refund.succeeded',
  'CUSTOMER.DISPUTE.CREATED': 'dispute.opened',
  'CUSTOMER.DISPUTE.RESOLVED': 'dispute.closed',
};

/** Which resource an event type carries, as far as references and amounts are concerned. */
type ResourceFamily = 'capture' | 'refund' | 'authorization' | 'dispute' | 'other';

function resourceFamily(eventType: string): ResourceFamily {
  // NOTE: a reversal (chargeback debit) carries a refund resource, like a refund does.
  if (eventType === 'PAYMENT.CAPTURE.REFUNDED' || eventType === 'PAYMENT.CAPTURE.REVERSED') {
    return 'refund';
  }
  if (eventType.startsWith('PAYMENT.CAPTURE.')) return 'capture';
  if (eventType.startsWith('PAYMENT.AUTHORIZATION.')) return 'authorization';
  if (eventType.startsWith('CUSTOMER.DISPUTE.')) return 'dispute';
  return 'other';
}

/** The capture a refund belongs to: the id at the end of its `rel: "up"` link. */
function capturedPaymentOf(refund: JsonObject): string | undefined {
  const links = Array.isArray(refund.links) ? refund.links : [];
  for (const link of links) {
    if (isJsonObject(link) && link.rel === 'up') {
      const href = readString(link, 'href');
      const match = href === undefined ? null : CAPTURE_LINK.exec(href);
      if (match) return decodePathSegment(match[1]);
    }
  }
  return undefined;
}

function decodePathSegment(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    // NOTE: a malformed escape (e.g. "%E0%A4%A") leaves the reference unknown rather than failing.
    return undefined;
  }
}

function firstDisputedTransaction(dispute: JsonObject): JsonObject | undefined {
  const transactions = dispute.disputed_transactions;
  return Array.isArray(transactions) && isJsonObject(transactions[0]) ? transactions[0] : undefined;
}

/** `{ value: '10.99', currency_code: 'USD' }` → 1099 and `'USD'`. */
function readMoney(money: JsonObject | undefined): { amount?: number; currency?: string } {
  const currency = toCurrency(money?.currency_code);
  const value = readString(money, 'value');
  if (currency === undefined) return {};
  return { amount: value === undefined ? undefined : toMinorUnits(value, currency), currency };
}

function shown(url: string): string {
  return JSON.stringify(url.length > MAX_SHOWN_URL ? `${url.slice(0, MAX_SHOWN_URL)}…` : url);
}

function describeError(error: unknown): string {
  const message = (value: unknown): string | undefined =>
    typeof value === 'object' && value !== null && typeof (value as Error).message === 'string'
      ? (value as Error).message
      : undefined;
  const text = message(error) ?? String(error);
  // NOTE: fetch reports "fetch failed" and puts the reason (ENOTFOUND, a redirect, …) in `cause`.
  const cause = message((error as { cause?: unknown } | undefined)?.cause);
  return cause === undefined ? text : `${text} (${cause})`;
}

/**
 * Creates the default certificate resolver: downloads with Node's fetch (redirects refused, a
 * timeout, a size limit), caches each certificate by URL (bounded, least recently used dropped
 * first), and shares one download between deliveries that arrive together. A failed download is
 * not cached.
 * @example
 * paypalEndpoint({
 *   name: 'paypal',
 *   webhookId: process.env.PAYPAL_WEBHOOK_ID!,
 *   certificateResolver: createPayPalCertificateResolver({ timeoutMs: 3000 }),
 * })
 */
export function createPayPalCertificateResolver(
  options: PayPalCertificateResolverOptions = {},
): PayPalCertificateResolver {
  const timeoutMs = positiveInteger('timeoutMs', options.timeoutMs, 5000);
  const maxEntries = positiveInteger('maxEntries', options.maxEntries, 32);
  const maxBytes = positiveInteger('maxBytes', options.maxBytes, 64 * 1024);
  const cache = new Map<string, Promise<string>>();

  async function download(url: string): Promise<string> {
    // NOTE: a redirect could lead off PayPal's hosts, which the URL check exists to prevent.
    const response = await fetch(url, {
      redirect: 'error',
      signal: AbortSignal.timeout(timeoutMs),
      headers: { accept: 'application/x-pem-file, text/plain, */*' },
    });
    if (response.status !== 200) {
      await response.body?.cancel().catch(() => undefined);
      throw new Error(`the certificate server answered HTTP ${response.status}`);
    }
    const declared = Number(response.headers.get('content-length'));
    if (declared > maxBytes) {
      await response.body?.cancel().catch(() => undefined);
      throw new Error(`the certificate is larger than ${maxBytes} bytes`);
    }
    const bytes = Buffer.from(await response.arrayBuffer());
    if (bytes.length > maxBytes) {
      throw new Error(`the certificate is larger than ${maxBytes} bytes`);
    }
    const text = bytes.toString('utf8');
    // NOTE: refused here, not only by the provider, so a bad answer is never cached.
    if (!text.includes('-----BEGIN CERTIFICATE-----')) {
      throw new Error('the answer is not a PEM certificate');
    }
    return text;
  }

  return (url: string): Promise<string> => {
    const cached = cache.get(url);
    if (cached !== undefined) {
      // NOTE: re-inserting moves the entry to the end, so eviction drops the least recently used.
      cache.delete(url);
      cache.set(url, cached);
      return cached;
    }
    const pending = download(url).catch((error: unknown) => {
      if (cache.get(url) === pending) cache.delete(url);
      // NOTE: checked by name: the abort error is a DOMException, not always an Error instance.
      const reason =
        (error as { name?: unknown } | undefined)?.name === 'TimeoutError'
          ? `no answer within ${timeoutMs} ms`
          : describeError(error);
      throw new Error(reason);
    });
    cache.set(url, pending);
    if (cache.size > maxEntries) {
      cache.delete(cache.keys().next().value as string);
    }
    return pending;
  };
}

function positiveInteger(option: string, value: number | undefined, fallback: number): number {
  const resolved = value ?? fallback;
  if (!Number.isSafeInteger(resolved) || resolved <= 0) {
    throw new WebhookConfigurationError(
      `createPayPalCertificateResolver: ${option} must be a positive integer (got ${String(value)}); ` +
        `leave it out for the default ${fallback}.`,
    );
  }
  return resolved;
}

interface TransmissionHeaders {
  readonly transmissionId: string;
  readonly transmissionTime: string;
  readonly signature: string;
  readonly certUrl: string;
  readonly authAlgo: string;
}

/**
 * PayPal REST webhooks: `PAYPAL-TRANSMISSION-SIG` is an RSA (PKCS#1 v1.5, SHA-256) signature of
 * `${transmissionId}|${transmissionTime}|${webhookId}|${crc32(rawBody)}` made with the key of the
 * certificate at `PAYPAL-CERT-URL`. Event ids (`WH-…`) are stable across retries.
 */
export class PayPalWebhookProvider implements WebhookProvider {
  /** Provider kind. */
  readonly kind = KIND;
  /** PayPal accepts any 2xx; an empty 200 is the plainest. */
  readonly acknowledgement: WebhookAcknowledgement = plainTextAcknowledgement();
  /** Which transmission it was, and when PayPal sent it; never its signature. */
  readonly storedHeaders: readonly string[] = Object.freeze([
    TRANSMISSION_ID_HEADER,
    TRANSMISSION_TIME_HEADER,
  ]);

  private readonly webhookId: string;
  private readonly tolerance: number;
  private readonly resolveCertificate: PayPalCertificateResolver;

  /**
   * @param options the PayPal options, checked here.
   * @param endpointName names the endpoint in configuration errors.
   * @throws WebhookConfigurationError when the webhook id or an option cannot work.
   */
  constructor(options: PayPalProviderOptions, endpointName = KIND) {
    const endpoint = `Webhook endpoint ${JSON.stringify(endpointName)} (${KIND})`;
    const webhookId: unknown = options?.webhookId;
    if (typeof webhookId !== 'string' || webhookId.length === 0 || /\s/.test(webhookId)) {
      throw new WebhookConfigurationError(
        `${endpoint} has no usable webhookId: set webhookId to the ID PayPal shows for this webhook ` +
          '(Developer Dashboard → Apps & Credentials → your app → Webhooks, e.g. "8PT597110X687430LKGECATA"; ' +
          'no spaces or line breaks); Webhooks Simulator events use "WEBHOOK_ID".',
      );
    }
    const tolerance = options.tolerance ?? PAYPAL_DEFAULT_TOLERANCE_SECONDS;
    if (!Number.isSafeInteger(tolerance) || tolerance < 0) {
      throw new WebhookConfigurationError(
        `${endpoint}: tolerance must be a whole number of seconds, 0 or more (got ${String(options.tolerance)}); ` +
          `leave it out for the default ${PAYPAL_DEFAULT_TOLERANCE_SECONDS} (4 days, longer than PayPal's ` +
          'retry horizon), or use 0 to switch the transmission-time check off.',
      );
    }
    if (
      options.certificateResolver !== undefined &&
      typeof options.certificateResolver !== 'function'
    ) {
      throw new WebhookConfigurationError(
        `${endpoint}: certificateResolver must be a function (url) => Promise<PEM text>; ` +
          'leave it out to download certificates from PayPal.',
      );
    }
    this.webhookId = webhookId;
    this.tolerance = tolerance;
    this.resolveCertificate = options.certificateResolver ?? createPayPalCertificateResolver();
  }

  /**
   * Checks the transmission headers, the certificate URL and the transmission time, then fetches
   * the certificate and checks the signature over the raw body's CRC-32.
   * @throws WebhookVerificationError (as a rejection)
   */
  async verify(request: InboundWebhook): Promise<void> {
    const headers = readTransmissionHeaders(request);
    if (headers.authAlgo.toLowerCase() !== AUTH_ALGO.toLowerCase()) {
      throw new WebhookVerificationError(
        'bad_signature',
        `Unsupported PAYPAL-AUTH-ALGO ${shown(headers.authAlgo)}: only ${AUTH_ALGO} is accepted`,
      );
    }
    const certUrl = checkCertUrl(headers.certUrl);
    const transmittedAt = parseTransmissionTime(headers.transmissionTime);
    if (!BASE64.test(headers.signature)) {
      throw new WebhookVerificationError(
        'bad_signature',
        'Malformed PAYPAL-TRANSMISSION-SIG header: expected base64',
      );
    }
    // NOTE: checked before the certificate is fetched, so a stale replay costs no outbound request.
    assertTimestampWithinWindow(
      Math.floor(transmittedAt / 1000),
      request.receivedAt,
      this.tolerance,
    );
    const certificate = await this.loadCertificate(certUrl, request.receivedAt);
    const message =
      `${headers.transmissionId}|${headers.transmissionTime}|${this.webhookId}|` +
      String(crc32(request.rawBody));
    let valid: boolean;
    try {
      valid = verifySignature(
        'sha256',
        Buffer.from(message, 'utf8'),
        certificate.publicKey,
        Buffer.from(headers.signature, 'base64'),
      );
    } catch {
      valid = false;
    }
    if (!valid) {
      throw new WebhookVerificationError(
        'bad_signature',
        'PAYPAL-TRANSMISSION-SIG does not match the payload, the transmission headers and the ' +
          "endpoint's webhookId (check that webhookId is the ID of the webhook this delivery was sent to)",
      );
    }
  }

  /**
   * Parses a PayPal webhook event and maps it to the normalized vocabulary.
   * @throws WebhookPayloadError
   */
  normalize(request: InboundWebhook): NormalizedNotification {
    const body = parseJsonObject(request.rawBody, 'PayPal event body');
    const event = validateEnvelope(PayPalEventEnvelope, body, 'PayPal event');
    // NOTE: read from the parsed body, not the validated copy, so the payload is the bytes' JSON.
    const resource = body.resource as JsonObject;
    const family = resourceFamily(event.event_type);

    let paymentRef: string | undefined;
    let merchantRef = readString(resource, 'custom_id') ?? readString(resource, 'invoice_id');
    let money = readMoney(readObject(resource, 'amount'));
    if (family === 'capture' || family === 'authorization') {
      paymentRef = readString(resource, 'id');
    } else if (family === 'refund') {
      // NOTE: the refund's own id is no payment; without an "up" link the reference stays unknown.
      paymentRef = capturedPaymentOf(resource);
    } else if (family === 'dispute') {
      const transaction = firstDisputedTransaction(resource);
      paymentRef = readString(transaction, 'seller_transaction_id');
      merchantRef = readString(transaction, 'custom') ?? readString(transaction, 'invoice_number');
      money = readMoney(readObject(resource, 'dispute_amount'));
    }

    return {
      eventId: event.id,
      type: ownValue(EVENT_TYPES, event.event_type) ?? `${KIND}:${event.event_type}`,
      nativeType: event.event_type,
      paymentRef,
      merchantRef,
      amount: money.amount,
      currency: money.currency,
      status: readString(resource, 'status'),
      occurredAt: parseIsoDate(event.create_time),
      payload: body,
    };
  }

  private async loadCertificate(url: string, receivedAt: Date): Promise<X509Certificate> {
    let pem: unknown;
    try {
      pem = await this.resolveCertificate(url);
    } catch (error) {
      throw new WebhookVerificationError(
        'bad_signature',
        `Could not get the PayPal signing certificate from ${shown(url)}: ${describeError(error)}; ` +
          'the delivery is refused and PayPal will retry it',
      );
    }
    let certificate: X509Certificate;
    try {
      certificate = new X509Certificate(pem as string);
    } catch {
      throw new WebhookVerificationError(
        'bad_signature',
        `The answer from ${shown(url)} is not a PEM X.509 certificate`,
      );
    }
    const now = receivedAt.getTime();
    if (now < Date.parse(certificate.validFrom) || now > Date.parse(certificate.validTo)) {
      throw new WebhookVerificationError(
        'bad_signature',
        `The PayPal certificate at ${shown(url)} is not valid at the receive time ` +
          `(valid from ${certificate.validFrom} to ${certificate.validTo})`,
      );
    }
    if (certificate.publicKey.asymmetricKeyType !== 'rsa') {
      throw new WebhookVerificationError(
        'bad_signature',
        `The PayPal certificate at ${shown(url)} does not hold an RSA key`,
      );
    }
    return certificate;
  }
}

function readTransmissionHeaders(request: InboundWebhook): TransmissionHeaders {
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
 * The certificate URL, if it is https on `paypal.com` or a host under it, with no credentials
 * and the default port; anything else is refused before a request is made.
 */
function checkCertUrl(text: string): string {
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
  const onPayPal = host === PAYPAL_DOMAIN || host.endsWith(`.${PAYPAL_DOMAIN}`);
  if (
    url.protocol !== 'https:' ||
    !onPayPal ||
    url.username !== '' ||
    url.password !== '' ||
    url.port !== ''
  ) {
    throw new WebhookVerificationError(
      'bad_signature',
      `PAYPAL-CERT-URL ${shown(text)} is refused: certificates are fetched only over https ` +
        `from paypal.com or a host under it`,
    );
  }
  return url.href;
}

/** Milliseconds since the epoch of an RFC 3339 transmission time. */
function parseTransmissionTime(text: string): number {
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
 * A PayPal webhook endpoint.
 * @throws WebhookConfigurationError at startup when the webhook id or an option cannot work.
 * @example
 * paypalEndpoint({ name: 'paypal', webhookId: process.env.PAYPAL_WEBHOOK_ID! })
 */
export function paypalEndpoint(options: PayPalEndpointOptions): WebhookEndpoint {
  return defineEndpoint(options, new PayPalWebhookProvider(options, options?.name));
}
