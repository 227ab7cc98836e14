import { isCurrencyCode } from '../../core/currency-codes';
import { ExpiringMap } from '../../core/expiring-map';
import {
  WebhookConfigurationError,
  WebhookPayloadError,
  WebhookVerificationError,
} from '../../core/webhook-errors';
import {
  assertNoWhitespaceInSecrets,
  plainTextAcknowledgement,
  requireSecrets,
} from '../define-endpoint';
import { defineProvider } from '../define-provider';
import { withEventIds } from '../delivery-event-ids';
import { parseJsonObject } from '../parse-payload';
import { ApiCallBudgetOptions, ApiLookup, ProviderApiCalls } from '../provider-api-calls';
import { sharedNotFoundNote } from '../provider-api-calls.messages';
import { resolveTolerance } from '../provider-options';
import { SignedDelivery } from '../signed-delivery';
import { jsonPost, requireSecret } from '../signing-input';
import {
  BaseEndpointOptions,
  InboundWebhook,
  NormalizedNotification,
  SignedTransmission,
  WebhookEndpoint,
  WebhookProvider,
} from '../webhook-provider.interface';
import {
  MercadoPagoStatusClient,
  MercadoPagoStatusClientOptions,
  mercadoPagoStatusClientOf,
} from './mercado-pago-status.client';
import {
  MercadoPagoPayment,
  isMercadoPagoPayment,
  normalizeMercadoPagoPayment,
} from './mercado-pago-payment';
import {
  ORDER_ACTIONS,
  mapMercadoPagoType,
  merchantRefOf,
  occurredAtOf,
  paidAmountOf,
  paymentRefOf,
  CheckedNotification,
  readNotification,
  statusOf,
} from './mercado-pago.notification';
import {
  MercadoPagoSignatureScheme,
  REQUEST_ID_HEADER,
  SIGNATURE_HEADER,
  mercadoPagoSignatureScheme,
  parseMercadoPagoSignature,
} from './mercado-pago.signature';

const KIND = 'mercado-pago';
const SECRET_PAGE =
  'Mercado Pago Developers → Your integrations → your application → Webhooks → Configure notifications → secret signature';
/**
 * How long a transmission is remembered when the time check is off: twice the 4 days over which
 * Mercado Pago documents retries (IPN schedule), so a replay cannot outlast it.
 */
const UNCHECKED_REPLAY_SECONDS = 2 * 4 * 24 * 60 * 60;
// NOTE: payment ids are digits; anything else is no payment Mercado Pago notifies.
const PAYMENT_ID = /^\d{1,32}$/;
/**
 * The most signed transmissions whose payment is remembered, for a replay to be answered
 * without a call: one per notification within the replay window (10 minutes by default).
 */
const MAX_REMEMBERED_TRANSMISSIONS = 500;

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
   * @advanced
   */
  toleranceSeconds?: number;
  /**
   * The timestamp window in seconds, under its name before 1.0.
   * @deprecated use `toleranceSeconds` (the same number of seconds); read until 2.0.
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
   * Mercado Pago API access: the Access Token of the same application and mode. With it, each
   * `payment` notification is confirmed while the call is answered: the payment is read from
   * `GET /v1/payments/{data.id}` and stored as the event (`payment.succeeded`, …); its
   * `timeoutMs` is then at most 18000, as Mercado Pago waits 22 s for the answer. Also used by
   * `verifyWithProvider`, `ctx.fetchStatus()` and reconciliation. Required unless
   * `verifyWithProvider` is `false`; without it, `payment` notifications stay native
   * (`mercado-pago:payment.updated`).
   * @example api: { accessToken: process.env.MERCADO_PAGO_ACCESS_TOKEN! }
   */
  api?: MercadoPagoStatusClientOptions;
  /**
   * Reads the payment (or order) from the Mercado Pago API before handlers run, so they act on
   * the API's answer: the signature covers only the notified id, not what the body says of it.
   * A `payment` notification's event is the payment the API returned while the call was
   * answered: that answer is its `event.verified`, and the API is not asked again. Needs `api`.
   * @default true
   */
  verifyWithProvider?: boolean;
  /**
   * The calls to the Mercado Pago API that `payment` notifications may make: `perMinute`, and
   * `burst` at once. Past it, a notification that needs a call is answered 503 with
   * `Retry-After` (decision `api_budget_spent`) and Mercado Pago sends it again later. A replay
   * of a signed notification within its window reuses the payment its first delivery read,
   * calls about one payment at the same time are shared, and its answer is remembered for 2 s
   * (30 s for a payment the API does not know).
   * @default { perMinute: 300, burst: 60 }
   * @advanced
   */
  apiCallBudget?: ApiCallBudgetOptions;
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

/** What `verify()` found out about a delivery, for `normalize()` of the same request. */
type Confirmation =
  | { readonly kind: 'notification' }
  | { readonly kind: 'payment'; readonly payment: MercadoPagoPayment }
  | { readonly kind: 'skip'; readonly notification: CheckedNotification; readonly reason: string };

/** What a Mercado Pago provider works with, its options checked. */
interface MercadoPagoSettings {
  readonly secrets: readonly string[];
  /** The timestamp window in seconds; 0: not checked. */
  readonly tolerance: number;
  readonly currency: string | undefined;
  /** The client `payment` notifications are confirmed with; none keeps them native. */
  readonly api: MercadoPagoStatusClient | undefined;
  /** The budget, shared calls and remembered answers of `api`'s lookups. */
  readonly calls: ProviderApiCalls;
}

/**
 * Mercado Pago Webhooks: `x-signature: ts=…,v1=…` is the hex HMAC-SHA256, keyed by the
 * application's secret signature, of `id:{data.id};request-id:{x-request-id};ts:{ts};`. Only
 * the notified id is signed, never the rest of the body: the ingress remembers each signed
 * transmission's body (`signedTransmission()`), and `verifyWithProvider` reads the resource
 * from the API. With an API client, a `payment` notification is confirmed at the door: the
 * payment is fetched, stored in the call's place and keyed by its state
 * (`mercadoPagoPaymentKey`); every other notification is keyed by its `id`, the same on every
 * retry. A replay of a signed transmission reuses the payment its first delivery fetched; other
 * calls are shared, remembered briefly and held to the endpoint's `apiCallBudget`
 * ({@link ProviderApiCalls}).
 */
class MercadoPagoWebhookProvider implements WebhookProvider {
  /** Provider kind. */
  readonly kind = KIND;
  /** Mercado Pago takes 200 or 201 within 22 seconds; the body is not read. */
  readonly acknowledgement = plainTextAcknowledgement();

  private readonly scheme: MercadoPagoSignatureScheme;
  // NOTE: verify() and normalize() get the same request object from the ingress.
  private readonly confirmations = new WeakMap<InboundWebhook, Confirmation>();
  /** The payment each signed transmission's own call read, by `data.id` and transmission. */
  private readonly transmissions = new ExpiringMap<string, MercadoPagoPayment>(
    MAX_REMEMBERED_TRANSMISSIONS,
  );

  constructor(private readonly settings: MercadoPagoSettings) {
    this.scheme = mercadoPagoSignatureScheme(settings.tolerance);
  }

  /**
   * Checks the signature (see {@link mercadoPagoSignatureScheme}). With an API client, then
   * fetches the payment a `payment` notification names (and resolves once it has it), unless a
   * replay of the same signed transmission finds the payment its first delivery fetched.
   * @throws WebhookVerificationError (a rejection `unconfirmed` when the API cannot confirm a
   * payment notification now, or the payment was read for another delivery a moment ago:
   * Mercado Pago calls again; `api_budget_spent` past the endpoint's budget of API calls), or
   * WebhookPayloadError for a body that is no notification, or a payment notification without a
   * payment id.
   */
  verify(request: InboundWebhook): void | Promise<void> {
    const notification = this.scheme.verifyNotification(request, this.settings.secrets);
    const { api } = this.settings;
    if (api === undefined || notification.type !== 'payment') {
      this.confirmations.set(request, { kind: 'notification' });
      return;
    }
    return this.confirmPayment(api, notification, request).then((confirmation) => {
      this.confirmations.set(request, confirmation);
    });
  }

  /**
   * The signed transmission, `x-request-id` with `ts`: the signature does not cover the body, so
   * the ingress refuses a second, different body under it. Remembered for twice the tolerance
   * (`ts` may lie `toleranceSeconds` ahead, and a replay passes until `toleranceSeconds` after it).
   */
  signedTransmission(request: InboundWebhook): SignedTransmission {
    const requestId = request.headers[REQUEST_ID_HEADER]?.trim() ?? '';
    const ts = parseMercadoPagoSignature(request.headers[SIGNATURE_HEADER]).ts;
    const { tolerance } = this.settings;
    return {
      id: `${requestId} ${ts}`,
      replayableSeconds: tolerance > 0 ? 2 * tolerance : UNCHECKED_REPLAY_SECONDS,
    };
  }

  /**
   * A confirmed payment notification: the payment fetched by `verify()`, keyed by its state and
   * stored in the call's place. Any other notification: keyed by its `id`; Orders API
   * notifications mapped by `action` (claims the API confirms under `verifyWithProvider`),
   * every other one kept native. A stored event is read back from the body it was stored with.
   * @throws WebhookPayloadError
   */
  normalize(request: InboundWebhook): NormalizedNotification {
    const confirmation = this.confirmations.get(request);
    if (confirmation?.kind === 'skip') {
      const { notification, reason } = confirmation;
      return {
        eventId: notification.id,
        type: `${KIND}:${notification.nativeType}`,
        nativeType: notification.nativeType,
        paymentRef: notification.dataId,
        payload: notification.body,
        skip: reason,
      };
    }
    if (confirmation?.kind === 'payment') {
      return normalizeMercadoPagoPayment(
        confirmation.payment,
        JSON.stringify(confirmation.payment),
      );
    }
    if (confirmation === undefined) {
      // NOTE: a stored payment notification is its payment, which has no `type`; a live
      // delivery always comes through verify(), so its body is never read as a payment.
      const body = parseJsonObject(request.rawBody, 'Mercado Pago notification body');
      if (isMercadoPagoPayment(body)) {
        return normalizeMercadoPagoPayment(body);
      }
    }
    const notification = readNotification(request.rawBody);
    const type = mapMercadoPagoType(notification);
    return {
      eventId: notification.id,
      type: type ?? `${KIND}:${notification.nativeType}`,
      nativeType: notification.nativeType,
      paymentRef: paymentRefOf(notification),
      merchantRef: merchantRefOf(notification),
      ...paidAmountOf(notification, type, this.settings.currency),
      status: statusOf(notification),
      occurredAt: occurredAtOf(notification),
      payload: notification.body,
    };
  }

  /**
   * The payment a payment notification names: the one its signed transmission's first delivery
   * fetched (a replay, within the replay window), else read from the API now.
   */
  private async confirmPayment(
    api: MercadoPagoStatusClient,
    notification: CheckedNotification,
    request: InboundWebhook,
  ): Promise<Confirmation> {
    const id = notification.dataId;
    if (id === undefined || !PAYMENT_ID.test(id)) {
      throw new WebhookPayloadError(
        'Mercado Pago notification is not valid: a payment notification names its payment in ' +
          'data.id (digits)',
      );
    }
    // NOTE: what the signature covers (data.id, x-request-id, ts) names the transmission, so a
    // remembered payment is the answer to this very notification, never to a later one.
    const transmission = this.signedTransmission(request);
    const key = `${id} ${transmission.id}`;
    const remembered = this.transmissions.get(key);
    if (remembered !== undefined) {
      return { kind: 'payment', payment: remembered };
    }
    const lookup = await this.lookUp(api, id);
    if (lookup.kind === 'not_found') {
      return {
        kind: 'skip',
        notification,
        reason:
          `Mercado Pago's API does not know payment ${id} for this Access Token ` +
          '(another application or mode, or not from Mercado Pago)' +
          (lookup.sharedAgeMs === undefined ? '' : sharedNotFoundNote(lookup.sharedAgeMs)),
      };
    }
    this.transmissions.set(key, lookup.value, transmission.replayableSeconds * 1000);
    return { kind: 'payment', payment: lookup.value };
  }

  /** Payment `id` from the API, within the endpoint's budget and shared with deliveries about it. */
  private async lookUp(
    api: MercadoPagoStatusClient,
    id: string,
  ): Promise<ApiLookup<MercadoPagoPayment>> {
    try {
      return await this.settings.calls.lookup(id, `payment ${id}`, () => api.fetchPayment(id));
    } catch (error) {
      if (error instanceof WebhookVerificationError) {
        throw error;
      }
      throw new WebhookVerificationError(
        'unconfirmed',
        `Could not confirm the Mercado Pago payment notification for ${id} with the Mercado Pago API: ` +
          `${error instanceof Error ? error.message : String(error)}; refused, so Mercado Pago calls again`,
      );
    }
  }
}

/** The options a Mercado Pago provider is built from: the endpoint's, its name aside. */
type MercadoPagoOptions = Omit<MercadoPagoEndpointOptions, 'name'>;

/**
 * Mercado Pago's definition. The provider is built through `create`: it keeps the payments it
 * confirmed, and its startup checks keep their order (API access, then the secret, the
 * tolerance and the currency), so the secret is checked there rather than by `secrets`. Nor
 * is the body signed: a changed body under a signed transmission is refused by the ingress
 * (`signedTransmission()`), not by `verify`.
 */
export const mercadoPagoProvider = defineProvider<MercadoPagoOptions>({
  kind: KIND,
  name: 'Mercado Pago',
  aliases: ['mercadopago'],
  retryHorizon: {
    days: 4,
    documented:
      'Webhooks: a retry every 15 minutes, then at longer intervals after the third, with no end ' +
      'stated; the IPN schedule ends with a fifth attempt 96 hours after the first',
  },
  signature: mercadoPagoSignatureScheme(),
  types: ORDER_ACTIONS,
  create(options, endpointName) {
    const api = mercadoPagoStatusClientOf(options, endpointName);
    const calls = new ProviderApiCalls({
      endpoint: endpointName,
      kind: KIND,
      provider: 'Mercado Pago',
      budget: options.apiCallBudget,
    });
    const secrets = requireSecrets(endpointName, KIND, 'secret', options.secret);
    assertNoWhitespaceInSecrets(
      endpointName,
      KIND,
      'secret',
      secrets,
      `Copy the secret signature from ${SECRET_PAGE}`,
    );
    return new MercadoPagoWebhookProvider({
      secrets,
      tolerance: resolveTolerance(endpointName, KIND, options, 'mercadoPagoEndpoint()'),
      currency: resolveCurrency(endpointName, options.currency),
      api,
      calls,
    });
  },
  extras: (options) => ({
    statusClient: mercadoPagoStatusClientOf(options, options.name),
    verifyWithProviderByDefault: true,
  }),
  cli: {
    title: 'Mercado Pago (Webhooks)',
    secret: "the application's webhook secret signature",
    timestamp: 'ts= of x-signature (Unix seconds; default now)',
    payload: 'the notification; its data.id is signed, the rest of the body is not',
    flags: [
      {
        name: 'request-id',
        value: '<id>',
        help: 'x-request-id, signed with data.id and ts (default: a random UUID)',
      },
    ],
    sign: (input) =>
      signedMercadoPagoDelivery(
        input.text,
        requireSecret(KIND, input),
        input.timestamp,
        input.options['request-id'],
      ),
  },
  sample: {
    secret: 'mercado-pago-sample-secret',
    options: { secret: 'mercado-pago-sample-secret', verifyWithProvider: false },
    flags: { 'request-id': 'bb56a2f1-6aae-46ac-982e-9dcd3581d08e' },
    body:
      '{"id":12345678901,"type":"payment","action":"payment.updated","api_version":"v1",' +
      '"date_created":"2026-03-02T15:04:05Z","live_mode":false,"data":{"id":"98765432101"}}',
  },
});

/**
 * A delivery of `body` signed as Mercado Pago signs it, with the id an endpoint without `api`
 * stores it under.
 * @param timestamp `ts` of `x-signature`, written as given (default now, in Unix seconds).
 * @param requestId `x-request-id` (default a random UUID).
 */
export function signedMercadoPagoDelivery(
  body: string,
  secret: string,
  timestamp?: number,
  requestId?: string,
): SignedDelivery {
  const headers = mercadoPagoSignatureScheme(undefined, requestId).sign(body, secret, timestamp);
  return withEventIds(jsonPost(KIND, { text: body }, headers), () =>
    mercadoPagoProvider.provider({ secret, verifyWithProvider: false }),
  );
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
  return mercadoPagoProvider.endpoint(options);
}

/** The provider kind of the endpoints it builds: `tenantEndpoint()` reads it. */
mercadoPagoEndpoint.kind = KIND;
