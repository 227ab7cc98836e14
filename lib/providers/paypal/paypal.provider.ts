import { renamedOption, toleranceRename } from '../../core/deprecated-options';
import { X509Certificate, verify as verifySignature } from 'node:crypto';
import { decodeCanonicalBase64 } from '../../core/base64';
import { assertTimestampWithinWindow } from '../../core/timestamp-window';
import { WebhookConfigurationError, WebhookVerificationError } from '../../core/webhook-errors';
import { plainTextAcknowledgement } from '../define-endpoint';
import { defineProvider } from '../define-provider';
import { withEventIds } from '../delivery-event-ids';
import {
  PayPalTrustAnchors,
  nodeTrustAnchors,
  trustAnchorsFrom,
  verifyPayPalCertificateChain,
} from './paypal-certificate-chain';
import {
  PayPalCertificateResolver,
  createPayPalCertificateResolver,
  describeCertificateError,
} from './paypal-certificate.resolver';
import { paypalTrustedRootsMessage } from '../providers.messages';
import { SignedDelivery } from '../signed-delivery';
import { jsonPost, SigningInputError } from '../signing-input';
import {
  BaseEndpointOptions,
  InboundWebhook,
  NormalizedNotification,
  SignedTransmission,
  WebhookAcknowledgement,
  WebhookEndpoint,
  WebhookProvider,
} from '../webhook-provider.interface';
import {
  AUTH_ALGO,
  TRANSMISSION_ID_HEADER,
  TRANSMISSION_TIME_HEADER,
  checkCertUrl,
  parseTransmissionTime,
  readTransmissionHeaders,
  shown,
  signedTransmissionHeaders,
  TransmissionSigning,
  transmissionMessage,
} from './paypal-transmission-headers';
import { PAYPAL_TEST_CA_PEM, PAYPAL_TEST_CERTIFICATE_PEM } from './paypal-test-certificate';
import { PayPalStatusClient, PayPalStatusClientOptions } from './paypal-status.client';
import { PayPalEventLog } from './paypal-event-log';
import { PAYPAL_EVENT_TYPES, readPayPalEvent } from './paypal-event';

const KIND = 'paypal';

/**
 * How far `PAYPAL-TRANSMISSION-TIME` may be from the receive time unless an endpoint says
 * otherwise: 4 days.
 *
 * NOTE: not shorter, because PayPal documents no window and does not say whether its retries
 * (up to 25 over 3 days) carry a new transmission time or the first one. If they carry the
 * first, a retry on the third day is three days old, and any window under 3 days would refuse
 * genuine retries, losing events once PayPal gives up; four days outlasts that horizon with a
 * day to spare. It stays below the 7 days the inbox keeps event ids, so a genuine delivery
 * replayed inside the window is caught as a duplicate and one replayed later is refused as out
 * of window. A shorter window would not close the forged-body gap either: a body made to match
 * a transmission's CRC-32 can be sent within seconds of the genuine one. That gap is closed by
 * remembering each transmission's body (see `signedTransmission()`) and, for money-moving
 * handlers, by `verifyWithProvider` with `api` credentials.
 */
export const PAYPAL_DEFAULT_TOLERANCE_SECONDS = 4 * 24 * 60 * 60;

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
   * @advanced
   */
  toleranceSeconds?: number;
  /**
   * The timestamp window in seconds, under its name before 1.0.
   * @deprecated use `toleranceSeconds` (the same number of seconds); read until 2.0.
   */
  tolerance?: number;
  /**
   * Fetches the certificates named in `PAYPAL-CERT-URL`. Whatever it answers must still pass
   * the subject, chain and validity checks. Tests inject one that answers with a local
   * certificate (see `PAYPAL_TEST_CERTIFICATE_PEM` in the testing entry point).
   * @default createPayPalCertificateResolver(): Node's fetch, 5 s timeout, no redirects, cached by URL, 4 downloads at once
   * @advanced
   */
  certificateResolver?: PayPalCertificateResolver;
  /**
   * The CA certificates (PEM; one text may hold several) that PayPal's signing certificate must
   * chain to, through the intermediates served with it. Replaces the default, so it can pin
   * the CA that issues PayPal's certificate (DigiCert: give the PEM of its root certificate).
   * Tests give `PAYPAL_TEST_CA_PEM` from the testing entry point; never give that CA in
   * production.
   * @default Node's bundled root certificates (`tls.rootCertificates`)
   * @advanced
   */
  trustedRoots?: string | readonly string[];
}

/** Options of `paypalEndpoint()`. */
export interface PayPalEndpointOptions extends BaseEndpointOptions, PayPalProviderOptions {
  /**
   * PayPal REST API access for "ask the provider" (`verifyWithProvider`, `ctx.fetchStatus()`,
   * reconciliation): the client ID and secret of a REST app of the same account and environment
   * as the webhook. With `verifyWithProvider: true`, an event runs its handlers only once
   * PayPal's own copy of it matches the notification, which PayPal's signature alone cannot
   * prove (it covers only a CRC-32 of the body); recommended for handlers that move money.
   * The same credentials read PayPal's list of webhook events (the last 30 days) to recover
   * events whose deliveries never arrived.
   * @example api: { clientId: process.env.PAYPAL_CLIENT_ID!, clientSecret: process.env.PAYPAL_CLIENT_SECRET! }
   */
  api?: PayPalStatusClientOptions;
}

/**
 * PayPal REST webhooks: `PAYPAL-TRANSMISSION-SIG` is an RSA (PKCS#1 v1.5, SHA-256) signature of
 * `${transmissionId}|${transmissionTime}|${webhookId}|${crc32(rawBody)}` made with the key of the
 * certificate at `PAYPAL-CERT-URL`, which must be PayPal's (`messageverificationcerts…paypal.com`,
 * chained to a trusted root). Event ids (`WH-…`) are stable across retries.
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
  private readonly trustAnchors: PayPalTrustAnchors;

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
    const given = renamedOption(
      options.toleranceSeconds,
      options.tolerance,
      toleranceRename('paypalEndpoint()'),
      endpoint,
    );
    const tolerance = given ?? PAYPAL_DEFAULT_TOLERANCE_SECONDS;
    if (!Number.isSafeInteger(tolerance) || tolerance < 0) {
      throw new WebhookConfigurationError(
        `${endpoint}: toleranceSeconds must be a whole number of seconds, 0 or more (got ${String(given)}); ` +
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
    this.trustAnchors = resolveTrustAnchors(endpoint, options.trustedRoots);
  }

  /**
   * Checks the transmission headers, the certificate URL and the transmission time, then fetches
   * the certificate, checks that it is PayPal's (subject, chain, validity), and checks the
   * signature over the raw body's CRC-32.
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
    const signature = decodeCanonicalBase64(headers.signature);
    if (signature === undefined) {
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
    const message = transmissionMessage(
      headers.transmissionId,
      headers.transmissionTime,
      this.webhookId,
      request.rawBody,
    );
    let valid: boolean;
    try {
      valid = verifySignature('sha256', message, certificate.publicKey, signature);
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
   * The transmission a verified delivery came in: PayPal signs its id and time but only the
   * CRC-32 of the body, so the ingress refuses a second, different body under the same id. It
   * is remembered for twice the tolerance (a transmission time may lie up to `toleranceSeconds` ahead
   * of the receive time, and a replay passes until `toleranceSeconds` after it); with the time check
   * off, for twice the default.
   */
  signedTransmission(request: InboundWebhook): SignedTransmission {
    const window = this.tolerance > 0 ? this.tolerance : PAYPAL_DEFAULT_TOLERANCE_SECONDS;
    return {
      id: request.headers[TRANSMISSION_ID_HEADER]?.trim() ?? '',
      replayableSeconds: 2 * window,
    };
  }

  /**
   * Parses a PayPal webhook event and maps it to the normalized vocabulary.
   * @throws WebhookPayloadError
   */
  normalize(request: InboundWebhook): NormalizedNotification {
    return readPayPalEvent(request.rawBody);
  }

  private async loadCertificate(url: string, receivedAt: Date): Promise<X509Certificate> {
    let pem: unknown;
    try {
      pem = await this.resolveCertificate(url);
    } catch (error) {
      throw new WebhookVerificationError(
        'bad_signature',
        `Could not get the PayPal signing certificate from ${shown(url)}: ` +
          `${describeCertificateError(error)}; the delivery is refused and PayPal will retry it`,
      );
    }
    const certificate = verifyPayPalCertificateChain(
      typeof pem === 'string' ? pem : '',
      shown(url),
      this.trustAnchors,
      receivedAt,
    );
    if (certificate.publicKey.asymmetricKeyType !== 'rsa') {
      throw new WebhookVerificationError(
        'bad_signature',
        `The PayPal certificate at ${shown(url)} does not hold an RSA key`,
      );
    }
    return certificate;
  }
}

/** The trust anchors of `trustedRoots`, or Node's bundled roots; a startup error if unusable. */
function resolveTrustAnchors(
  endpoint: string,
  trustedRoots: string | readonly string[] | undefined,
): PayPalTrustAnchors {
  if (trustedRoots === undefined) return nodeTrustAnchors();
  const pems = (Array.isArray(trustedRoots) ? trustedRoots : [trustedRoots]) as string[];
  const resolved = pems.length === 0 ? { invalid: 0 } : trustAnchorsFrom(pems);
  if ('invalid' in resolved) {
    throw new WebhookConfigurationError(
      paypalTrustedRootsMessage(endpoint, pems.length > 1 ? resolved.invalid : undefined),
    );
  }
  return resolved.anchors;
}

/**
 * PayPal: verifying fetches the signing certificate (cached by its resolver) and checks its chain
 * against the endpoint's trust anchors, so the provider is `PayPalWebhookProvider`, built through
 * `create`; the definition carries the rest.
 */
export const paypalProvider = defineProvider<
  PayPalProviderOptions & Pick<PayPalEndpointOptions, 'api'>
>({
  kind: KIND,
  name: 'PayPal',
  retryHorizon: { days: 3, documented: 'up to 25 retries over 3 days' },
  create: (options, endpointName) => new PayPalWebhookProvider(options, endpointName),
  types: PAYPAL_EVENT_TYPES,
  extras: (options) => ({
    statusClient: options.api && new PayPalStatusClient(options.api),
    eventLog: options.api && new PayPalEventLog(options.api),
  }),
  cli: {
    title: 'PayPal (RSA signature with a certificate)',
    secret: null,
    timestamp: 'PAYPAL-TRANSMISSION-TIME (Unix seconds; default now)',
    payload: 'the event, signed byte for byte (through its CRC32)',
    flags: [
      {
        name: 'webhook-id',
        value: '<id>',
        help: "the webhook id the endpoint is configured with (required; PayPal's simulator uses WEBHOOK_ID)",
      },
      {
        name: 'private-key',
        value: '<pem file>',
        help: "private key of the certificate at --cert-url (default the package's test key, PAYPAL_TEST_PRIVATE_KEY_PEM)",
      },
      {
        name: 'cert-url',
        value: '<url>',
        help: "PAYPAL-CERT-URL, answered by the endpoint's certificateResolver (default PAYPAL_TEST_CERT_URL)",
      },
      {
        name: 'transmission-id',
        value: '<id>',
        help: 'PAYPAL-TRANSMISSION-ID (default a new UUID)',
      },
    ],
    sign: (input): SignedDelivery => {
      const webhookId = input.options['webhook-id'];
      if (webhookId === undefined || webhookId === '') {
        throw new SigningInputError('--provider paypal needs --webhook-id');
      }
      return paypalDelivery(input.text, {
        webhookId,
        privateKey:
          input.options['private-key'] === undefined ? undefined : input.readFile('private-key'),
        certUrl: input.options['cert-url'],
        transmissionId: input.options['transmission-id'],
        transmissionTime:
          input.timestamp === undefined ? undefined : new Date(input.timestamp * 1000),
      });
    },
  },
  sample: {
    body: JSON.stringify({
      id: 'WH-2WR32451HC0233532-67976317FL4543714',
      event_type: 'PAYMENT.CAPTURE.COMPLETED',
      create_time: '2024-05-12T18:14:14Z',
      resource: { id: '42311647XV020574X', status: 'COMPLETED', custom_id: 'order-42' },
    }),
    options: {
      webhookId: 'WH-SAMPLE',
      certificateResolver: async () => PAYPAL_TEST_CERTIFICATE_PEM,
      trustedRoots: PAYPAL_TEST_CA_PEM,
    },
    flags: { 'webhook-id': 'WH-SAMPLE' },
  },
});

/**
 * `body` as PayPal sends it signed under `signing`, with the event id the endpoint stores it
 * under; the CLI's signing and `signPayPalDelivery()` both make their deliveries here.
 */
export function paypalDelivery(body: string, signing: TransmissionSigning): SignedDelivery {
  const delivery = jsonPost(KIND, { text: body }, signedTransmissionHeaders(body, signing));
  return withEventIds(delivery, () => paypalProvider.provider({ webhookId: signing.webhookId }));
}

/**
 * A PayPal webhook endpoint.
 * @throws WebhookConfigurationError at startup when the webhook id or an option cannot work.
 * @example
 * paypalEndpoint({ name: 'paypal', webhookId: process.env.PAYPAL_WEBHOOK_ID! })
 * @example
 * // Recommended where handlers move money: PayPal confirms each event before they run.
 * paypalEndpoint({
 *   name: 'paypal',
 *   webhookId: process.env.PAYPAL_WEBHOOK_ID!,
 *   api: { clientId: process.env.PAYPAL_CLIENT_ID!, clientSecret: process.env.PAYPAL_CLIENT_SECRET! },
 *   verifyWithProvider: true,
 * })
 */
export function paypalEndpoint(options: PayPalEndpointOptions): WebhookEndpoint {
  return paypalProvider.endpoint(options);
}

/** The provider kind of the endpoints it builds: `tenantEndpoint()` reads it. */
paypalEndpoint.kind = KIND;
