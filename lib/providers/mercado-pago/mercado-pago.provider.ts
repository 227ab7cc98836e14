import { isCurrencyCode } from '../../core/currency-codes';
import { WebhookConfigurationError } from '../../core/webhook-errors';
import { assertNoWhitespaceInSecrets, defineEndpoint, requireSecrets } from '../define-endpoint';
import { resolveTolerance } from '../provider-options';
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
  MercadoPagoStatusClient,
  MercadoPagoStatusClientOptions,
} from './mercado-pago-status.client';
import {
  mapMercadoPagoType,
  merchantRefOf,
  occurredAtOf,
  paidAmountOf,
  paymentRefOf,
  readNotification,
  statusOf,
} from './mercado-pago.notification';
import {
  REQUEST_ID_HEADER,
  SIGNATURE_HEADER,
  parseMercadoPagoSignature,
  requireRequestId,
  verifyMercadoPagoSignature,
} from './mercado-pago.signature';

const KIND = 'mercado-pago';
const SECRET_PAGE =
  'Mercado Pago Developers → Your integrations → your application → Webhooks → Configure notifications → secret signature';
/**
 * How long a transmission is remembered when the time check is off: twice the 4 days over which
 * Mercado Pago documents retries (IPN schedule), so a replay cannot outlast it.
 */
const UNCHECKED_REPLAY_SECONDS = 2 * 4 * 24 * 60 * 60;

/** Options of the Mercado Pago protocol, shared by `mercadoPagoEndpoint()` and the provider class. */
export interface MercadoPagoProviderOptions {
  /**
   * The application's webhook secret signature (Your integrations → your application → Webhooks
   * → Configure notifications → reveal the secret signature), used verbatim; the test and
   * production modes have one each. Pass a list while Mercado Pago's "Reset" replaces it: a
   * delivery is accepted when any entry matches. Required.
   */
  secret: string | readonly string[];
  /**
   * Largest distance in seconds between the signed `ts` of `x-signature` and the receive time, in
   * either direction; `0` switches the check off. Mercado Pago documents no window: raise it if
   * its retries arrive refused as `timestamp_out_of_window`.
   * @default 300
   */
  tolerance?: number;
  /**
   * The ISO 4217 code of your account's currency (one per country: ARS, BRL, CLP, COP, MXN,
   * PEN, UYU), for the amount of a paid Orders API notification, which gives `total_paid_amount`
   * as a decimal without a currency. Without it that amount is left out; the status client
   * reads the order's own currency.
   * @default none
   */
  currency?: string;
}

/** Options of `mercadoPagoEndpoint()`. */
export interface MercadoPagoEndpointOptions
  extends BaseEndpointOptions, MercadoPagoProviderOptions {
  /**
   * Mercado Pago API access for "ask the provider" (`verifyWithProvider`, `ctx.fetchStatus()`,
   * reconciliation): the Access Token of the same application and mode. Required unless
   * `verifyWithProvider` is `false`.
   * @example api: { accessToken: process.env.MERCADO_PAGO_ACCESS_TOKEN! }
   */
  api?: MercadoPagoStatusClientOptions;
  /**
   * Reads the payment (or order) from the Mercado Pago API before handlers run, so they act on
   * the API's answer: the signature covers only the notified id, not what the body says of it.
   * Needs `api`.
   * @default true
   */
  verifyWithProvider?: boolean;
}

function label(name: unknown): string {
  return `Webhook endpoint ${JSON.stringify(name)} (${KIND})`;
}

function resolveCurrency(name: unknown, value: unknown): string | undefined {
  if (value === undefined) {
    return undefined;
  }
  if (typeof value !== 'string' || !isCurrencyCode(value)) {
    throw new WebhookConfigurationError(
      `${label(name)}: currency must be the ISO 4217 code of the account's currency, e.g. "BRL" ` +
        'or "ARS", or left out.',
    );
  }
  return value.toUpperCase();
}

/**
 * Mercado Pago Webhooks: `x-signature: ts=…,v1=…` is the hex HMAC-SHA256, keyed by the
 * application's secret signature, of `id:{data.id};request-id:{x-request-id};ts:{ts};`. Only
 * the notified id is signed, never the rest of the body: the ingress remembers each signed
 * transmission's body (`signedTransmission()`), and `verifyWithProvider` reads the resource
 * from the API. The notification's `id`, the same on every retry, is the dedup key.
 */
export class MercadoPagoWebhookProvider implements WebhookProvider {
  /** Provider kind. */
  readonly kind = KIND;
  /** Mercado Pago takes 200 or 201 within 22 seconds; the body is not read. */
  readonly acknowledgement: WebhookAcknowledgement = Object.freeze({
    status: 200,
    body: '',
    contentType: 'text/plain; charset=utf-8',
  });

  private readonly secrets: readonly string[];
  private readonly tolerance: number;
  private readonly currency: string | undefined;

  /**
   * @param options the Mercado Pago options, checked here.
   * @param endpointName names the endpoint in configuration errors.
   * @throws WebhookConfigurationError when the secret, tolerance or currency cannot work.
   */
  constructor(options: MercadoPagoProviderOptions, endpointName = KIND) {
    const secrets = requireSecrets(endpointName, KIND, 'secret', options?.secret);
    assertNoWhitespaceInSecrets(
      endpointName,
      KIND,
      'secret',
      secrets,
      `Copy the secret signature from ${SECRET_PAGE}`,
    );
    this.secrets = secrets;
    this.tolerance = resolveTolerance(endpointName, KIND, options.tolerance);
    this.currency = resolveCurrency(endpointName, options.currency);
  }

  /**
   * Checks `x-signature` against `data.id` of the body, `x-request-id` and `ts`, then `ts`
   * against the tolerance.
   * @throws WebhookVerificationError, or WebhookPayloadError for a body that is no notification.
   */
  verify(request: InboundWebhook): void {
    const signature = parseMercadoPagoSignature(request.headers[SIGNATURE_HEADER]);
    const requestId = requireRequestId(request.headers[REQUEST_ID_HEADER]);
    // NOTE: Mercado Pago signs data.id as it puts it in the URL's query, which it sets to the
    // body's data.id; the body's is the one handlers read, so it is the one checked.
    const { dataId } = readNotification(request.rawBody);
    verifyMercadoPagoSignature(
      signature,
      { dataId, requestId },
      this.secrets,
      request.receivedAt,
      this.tolerance,
    );
  }

  /**
   * The signed transmission, `x-request-id` with `ts`: the signature does not cover the body, so
   * the ingress refuses a second, different body under it. Remembered for twice the tolerance
   * (`ts` may lie `tolerance` ahead, and a replay passes until `tolerance` after it).
   */
  signedTransmission(request: InboundWebhook): SignedTransmission {
    const requestId = request.headers[REQUEST_ID_HEADER]?.trim() ?? '';
    const ts = parseMercadoPagoSignature(request.headers[SIGNATURE_HEADER]).ts;
    return {
      id: `${requestId} ${ts}`,
      replayableSeconds: this.tolerance > 0 ? 2 * this.tolerance : UNCHECKED_REPLAY_SECONDS,
    };
  }

  /**
   * Parses a notification: keyed by its `id`; Orders API notifications mapped by `action`
   * (claims the API confirms under `verifyWithProvider`), every other one kept native.
   * @throws WebhookPayloadError
   */
  normalize(request: InboundWebhook): NormalizedNotification {
    const notification = readNotification(request.rawBody);
    const type = mapMercadoPagoType(notification);
    return {
      eventId: notification.id,
      type: type ?? `${KIND}:${notification.nativeType}`,
      nativeType: notification.nativeType,
      paymentRef: paymentRefOf(notification),
      merchantRef: merchantRefOf(notification),
      ...paidAmountOf(notification, type, this.currency),
      status: statusOf(notification),
      occurredAt: occurredAtOf(notification),
      payload: notification.body,
    };
  }
}

/** The status client of the endpoint's `api`, or a startup error when it is needed and missing. */
function statusClientOf(options: MercadoPagoEndpointOptions): MercadoPagoStatusClient | undefined {
  if (options.api === undefined) {
    if (options.verifyWithProvider !== false) {
      throw new WebhookConfigurationError(
        `${label(options.name)} reads each notified payment from the Mercado Pago API ` +
          '(verifyWithProvider, on by default, because Mercado Pago signs only its id) but has no ' +
          'API access: set api: { accessToken } (Your integrations → your application → ' +
          'credentials → Access Token), or set verifyWithProvider: false to act on the notification alone.',
      );
    }
    return undefined;
  }
  return new MercadoPagoStatusClient(options.api);
}

/**
 * A Mercado Pago Webhooks endpoint.
 * @throws WebhookConfigurationError at startup when an option cannot work, in particular when
 * `verifyWithProvider` is on (the default) without `api`.
 * @example
 * mercadoPagoEndpoint({
 *   name: 'mercado-pago',
 *   secret: process.env.MERCADO_PAGO_WEBHOOK_SECRET!,
 *   api: { accessToken: process.env.MERCADO_PAGO_ACCESS_TOKEN! },
 * })
 */
export function mercadoPagoEndpoint(options: MercadoPagoEndpointOptions): WebhookEndpoint {
  const provider = new MercadoPagoWebhookProvider(options, options?.name);
  return defineEndpoint(options, provider, {
    statusClient: statusClientOf(options),
    verifyWithProviderByDefault: true,
  });
}

/** The provider kind of the endpoints it builds: `tenantEndpoint()` reads it. */
mercadoPagoEndpoint.kind = 'mercado-pago';
