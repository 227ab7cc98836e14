import { movedIntoApi } from '../../core/deprecated-options';
import { hmacSha256 } from '../../core/hmac';
import { PaymentEventType } from '../../core/payment-event-types';
import {
  WebhookConfigurationError,
  WebhookPayloadError,
  WebhookVerificationError,
} from '../../core/webhook-errors';
import { plainTextAcknowledgement } from '../define-endpoint';
import { defineProvider, SignatureScheme } from '../define-provider';
import { parseFormBody } from '../form-body';
import { parseJsonObject } from '../parse-payload';
import { ApiCallBudgetOptions, ApiLookup, ProviderApiCalls } from '../provider-api-calls';
import { sharedNotFoundNote } from '../provider-api-calls.messages';
import { resolveNonEmptyString } from '../provider-options';
import { assertAnySignatureMatches } from '../signature-header';
import {
  BaseEndpointOptions,
  InboundWebhook,
  NormalizedNotification,
  WebhookAcknowledgement,
  WebhookEndpoint,
  WebhookProvider,
} from '../webhook-provider.interface';
import { normalizeMollieEvent, normalizeMolliePayment } from './mollie-event';
import { DEFAULT_MERCHANT_REF_KEY, PAYMENT_TYPES } from './mollie-payment';
import {
  MolliePayment,
  MollieStatusClient,
  MollieStatusClientOptions,
} from './mollie-status.client';

const KIND = 'mollie';
const SIGNATURE_HEADER = 'x-mollie-signature';
const HEX_SHA256 = /^[0-9a-fA-F]{64}$/;
// NOTE: Mollie ids are a lower-case prefix, "_" and letters or digits (tr_…, ord_…, sub_…).
const MOLLIE_ID = /^([a-z]{1,10})_[A-Za-z0-9]{1,100}$/;
/** Mollie waits 15 s for the answer; the API check must end well before. */
const LONGEST_API_WAIT_MS = 12_000;

/** Options of the Mollie protocol, shared by `mollieEndpoint()` and `mollieProvider`. */
export interface MollieProviderOptions {
  /**
   * The signing secret of a next-gen webhook (Dashboard → Developers → Webhooks → your webhook,
   * or the `webhookSecret` the Webhooks API returns when it creates one), used verbatim. Pass a
   * list while rotating: Mollie signs with both secrets for 24 hours, and a delivery is accepted
   * when any signature matches any secret. Required to take next-gen webhooks (signed,
   * `X-Mollie-Signature`); leave it out for classic webhooks only.
   */
  signingSecret?: string | readonly string[];
  /**
   * Key of the payment's `metadata` entry (set by your app when creating the payment) that holds
   * your order id; it becomes `merchantRef`.
   * @default 'order_id'
   */
  merchantRefKey?: string;
}

/**
 * Options of `mollieEndpoint()`. One endpoint takes both kinds of Mollie webhook: next-gen
 * webhooks (signed with `signingSecret`) and classic webhooks (`id=tr_…`, confirmed with the API
 * through `api`). Give at least one of the two.
 */
export interface MollieEndpointOptions extends BaseEndpointOptions, MollieProviderOptions {
  /**
   * Mollie API access: an API key (`live_…` or `test_…`, Dashboard → Developers → API keys) or an
   * organization access token (`access_…`) of the account the payments belong to, in the same
   * mode as the webhooks. Required to take classic webhooks, which carry only the payment's id:
   * the payment is fetched while the call is answered, and its state is what is stored. Also the
   * status client of `verifyWithProvider` and `ctx.fetchStatus()`. A classic webhook waits for
   * the API before it is answered, and Mollie waits 15 s for that answer, so its `timeoutMs` is
   * at most 12000.
   */
  api?: MollieStatusClientOptions;
  /**
   * The API key, given flat before 1.0.
   * @deprecated use `api: { apiKey }`; read until 2.0.
   */
  apiKey?: string;
  /**
   * The API's base URL, given flat before 1.0.
   * @deprecated use `api: { apiUrl }`; read until 2.0.
   */
  apiUrl?: string;
  /**
   * The API's timeout in milliseconds, given flat before 1.0.
   * @deprecated use `api: { timeoutMs }` (the same milliseconds); read until 2.0.
   */
  timeoutMs?: number;
  /**
   * Asks the Mollie API for the payment's status before handlers run (`event.verified`). A
   * classic webhook's event is the payment the API returned while the call was answered: that
   * answer is its `event.verified`, and the API is not asked again.
   * @default true when `api` is set, false otherwise
   */
  verifyWithProvider?: boolean;
  /**
   * The calls to the Mollie API that classic webhooks may make: `perMinute`, and `burst` at
   * once. Anyone can post `id=tr_…` to the endpoint, and each call it takes to confirm one is
   * made with your API key; past the budget a classic webhook is answered 503 with
   * `Retry-After` (decision `api_budget_spent`) and Mollie calls again later. Calls about one
   * payment at the same time are shared, and its answer is remembered for 2 s (30 s for a
   * payment the API does not know).
   * @default { perMinute: 300, burst: 60 }
   * @advanced
   */
  apiCallBudget?: ApiCallBudgetOptions;
}

/** What `verify()` found out about a delivery, for `normalize()` of the same request. */
type Confirmation =
  | { readonly kind: 'signed' }
  | { readonly kind: 'payment'; readonly payment: MolliePayment }
  | { readonly kind: 'skip'; readonly id: string; readonly reason: string };

function endpointLabel(name: unknown): string {
  return `Webhook endpoint ${JSON.stringify(name)} (${KIND})`;
}

/** The signatures of an `X-Mollie-Signature` value: one, or one per secret while rotating. */
function readSignatures(value: string): string[] {
  // NOTE: Mollie sends the header twice during a rotation; Node joins repeated headers with ", ".
  return value
    .split(',')
    .map((item) => item.trim())
    .map((item) => (item.startsWith('sha256=') ? item.slice('sha256='.length) : item))
    .filter((item) => HEX_SHA256.test(item))
    .map((item) => item.toLowerCase());
}

/** The checked `merchantRefKey`, or its default. */
function resolveMerchantRefKey(endpointName: unknown, value: string | undefined): string {
  return resolveNonEmptyString(
    endpointName,
    KIND,
    'merchantRefKey',
    value,
    DEFAULT_MERCHANT_REF_KEY,
  );
}

/** The `id` of a classic webhook's form body. */
function readClassicId(rawBody: Buffer): string {
  const fields = parseFormBody(rawBody, 'Mollie webhook');
  const id = Object.hasOwn(fields, 'id') ? fields.id : '';
  if (!MOLLIE_ID.test(id)) {
    throw new WebhookPayloadError(
      'Mollie webhook is not valid: a classic webhook is the form field id=<Mollie id> ' +
        '(e.g. id=tr_5B8cwPMGnU6qLbRvo7qEZo), and a next-gen one carries X-Mollie-Signature',
    );
  }
  return id;
}

/**
 * How Mollie signs a next-gen webhook: `X-Mollie-Signature: sha256=<hex>`, the HMAC-SHA256 of the
 * raw body keyed by the webhook's signing secret.
 */
const MOLLIE_SIGNATURE: SignatureScheme = {
  verify(request, secrets) {
    const header = request.headers[SIGNATURE_HEADER];
    if (header === undefined || header.trim() === '') {
      throw new WebhookVerificationError(
        'missing_signature',
        'Missing X-Mollie-Signature header (a classic Mollie webhook, id=…, is taken only by an ' +
          'endpoint with api: { apiKey }, which confirms it with the Mollie API)',
      );
    }
    if (secrets.length === 0) {
      throw new WebhookVerificationError(
        'bad_signature',
        'X-Mollie-Signature cannot be checked: the endpoint has no signingSecret (set it to the ' +
          "next-gen webhook's signing secret, Dashboard → Developers → Webhooks)",
      );
    }
    const signatures = readSignatures(header);
    if (signatures.length === 0) {
      throw new WebhookVerificationError(
        'bad_signature',
        'Malformed X-Mollie-Signature header: expected sha256=<64 hex digits>',
      );
    }
    const expected = secrets.map((secret) => hmacSha256(secret, [request.rawBody]).toString('hex'));
    assertAnySignatureMatches(expected, signatures, 'sha256', 'X-Mollie-Signature');
  },
  sign: (body, secret) => ({
    [SIGNATURE_HEADER]: `sha256=${hmacSha256(secret, [body]).toString('hex')}`,
  }),
};

/** The next-gen Payments API events by type; the others are kept native. */
const EVENT_TYPES: Readonly<Record<string, PaymentEventType>> = Object.fromEntries(
  Object.entries(PAYMENT_TYPES).map(([status, type]) => [`payment.${status}`, type]),
);

/**
 * Mollie webhooks, both kinds:
 * - next-gen (`X-Mollie-Signature: sha256=<hex HMAC-SHA256 of the raw body>`): the signed event's
 *   `id` (`event_…`) is the dedup key;
 * - classic (form body `id=tr_…`, unsigned): `verify()` fetches the payment from the API (an id
 *   the API does not know is answered 200 and not stored); the payment's state is stored in the
 *   call's place and keys it (see `paymentStateKey`). Anyone can send one, so the calls are
 *   shared, remembered briefly and held to the endpoint's `apiCallBudget` ({@link ProviderApiCalls}).
 */
class MollieWebhookProvider implements WebhookProvider {
  /** Provider kind. */
  readonly kind = KIND;
  /** Mollie counts a 200 (classic: "only have to return 200 OK") as delivered. */
  readonly acknowledgement: WebhookAcknowledgement = plainTextAcknowledgement();

  // NOTE: verify() and normalize() get the same request object from the ingress.
  private readonly confirmations = new WeakMap<InboundWebhook, Confirmation>();

  /**
   * @param secrets the signing secrets, checked by the definition; none takes classic ones only.
   * @param merchantRefKey the payment's `metadata` key that holds the order id.
   * @param api the client classic webhooks are confirmed with; none takes next-gen ones only.
   * @param calls the budget, shared calls and remembered answers of `api`'s lookups.
   */
  constructor(
    private readonly secrets: readonly string[],
    private readonly merchantRefKey: string,
    private readonly api: MollieStatusClient | undefined,
    private readonly calls: ProviderApiCalls,
  ) {}

  /**
   * A next-gen delivery: checks `X-Mollie-Signature`. A classic one: fetches the payment it names
   * from the Mollie API.
   * @throws WebhookVerificationError (as a rejection) when the signature does not match; with
   * reason `unconfirmed` when the API cannot confirm a classic webhook now, or was asked about
   * its payment for another delivery a moment ago, and `api_budget_spent` past the endpoint's
   * budget of API calls (Mollie calls again); WebhookPayloadError for a classic body that is not
   * `id=<Mollie id>`.
   */
  async verify(request: InboundWebhook): Promise<void> {
    const header = request.headers[SIGNATURE_HEADER];
    if ((header !== undefined && header.trim() !== '') || this.api === undefined) {
      MOLLIE_SIGNATURE.verify(request, this.secrets);
      this.confirmations.set(request, { kind: 'signed' });
      return;
    }
    this.confirmations.set(request, await this.confirmClassic(this.api, request.rawBody));
  }

  /**
   * A next-gen event keyed by its `id`; a classic webhook's payment keyed by its state; a stored
   * event read back from the body it was stored with.
   * @throws WebhookPayloadError
   */
  normalize(request: InboundWebhook): NormalizedNotification {
    const confirmation = this.confirmations.get(request);
    if (confirmation?.kind === 'skip') {
      return {
        eventId: confirmation.id,
        type: `${KIND}:webhook`,
        nativeType: 'webhook',
        paymentRef: confirmation.id,
        payload: { id: confirmation.id },
        skip: confirmation.reason,
      };
    }
    if (confirmation?.kind === 'payment') {
      const text = JSON.stringify(confirmation.payment);
      return normalizeMolliePayment(confirmation.payment, this.merchantRefKey, text);
    }
    const body = parseJsonObject(request.rawBody, 'Mollie webhook body');
    // NOTE: a stored classic webhook is its payment (resource "payment"); a live one never is.
    if (confirmation === undefined && body.resource === 'payment') {
      return normalizeMolliePayment(body, this.merchantRefKey);
    }
    return normalizeMollieEvent(body, this.merchantRefKey);
  }

  private async confirmClassic(api: MollieStatusClient, rawBody: Buffer): Promise<Confirmation> {
    const id = readClassicId(rawBody);
    if (!id.startsWith('tr_')) {
      return {
        kind: 'skip',
        id,
        reason: `a classic webhook about ${id.split('_')[0]}_… objects; only payments (tr_…) are confirmed`,
      };
    }
    let lookup: ApiLookup<MolliePayment>;
    try {
      lookup = await this.calls.lookup(id, `payment ${id}`, () => api.fetchPayment(id));
    } catch (error) {
      if (error instanceof WebhookVerificationError) {
        throw error;
      }
      throw new WebhookVerificationError(
        'unconfirmed',
        `Could not confirm the classic Mollie webhook for ${id} with the Mollie API: ` +
          `${error instanceof Error ? error.message : String(error)}; refused, so Mollie calls again`,
      );
    }
    if (lookup.kind === 'fetched') {
      return { kind: 'payment', payment: lookup.value };
    }
    return {
      kind: 'skip',
      id,
      reason:
        `Mollie's API does not know payment ${id} for this apiKey (another account or mode, or not from Mollie)` +
        (lookup.sharedAgeMs === undefined ? '' : sharedNotFoundNote(lookup.sharedAgeMs)),
    };
  }
}

// NOTE: the provider and the endpoint's extras share one client, and the moved options warn once.
const statusClients = new WeakMap<object, MollieStatusClient | undefined>();

/** The status client of `api`, or none; a startup error for a wait Mollie would not allow. */
function statusClientOf(options: MollieEndpointOptions): MollieStatusClient | undefined {
  if (options !== null && typeof options === 'object' && statusClients.has(options)) {
    return statusClients.get(options);
  }
  const client = newStatusClient(options);
  if (options !== null && typeof options === 'object') statusClients.set(options, client);
  return client;
}

function newStatusClient(options: MollieEndpointOptions): MollieStatusClient | undefined {
  const api = movedIntoApi<MollieStatusClientOptions>(
    options,
    options?.api,
    ['apiKey', 'apiUrl', 'timeoutMs'],
    'mollieEndpoint()',
    'NPW_DEP_MOLLIE',
    endpointLabel(options?.name),
  );
  if (api === undefined) {
    return undefined;
  }
  if (typeof api.timeoutMs === 'number' && api.timeoutMs > LONGEST_API_WAIT_MS) {
    throw new WebhookConfigurationError(
      `${endpointLabel(options.name)}: api.timeoutMs ${api.timeoutMs} is longer than a classic ` +
        `webhook can wait for the Mollie API (Mollie waits 15 s for the answer); use at most ` +
        `${LONGEST_API_WAIT_MS}, or leave it out for 10000.`,
    );
  }
  return new MollieStatusClient(api as MollieStatusClientOptions);
}

/**
 * Mollie webhooks, next-gen (signed) and classic (confirmed with the API through `api`); the
 * provider keeps what `verify()` learned for `normalize()` and the API calls' budget, so
 * `create` builds it.
 */
export const mollieProvider = defineProvider<MollieEndpointOptions>({
  kind: KIND,
  name: 'Mollie',
  retryHorizon: {
    days: 2,
    documented:
      'classic webhooks: "we’ll keep trying for a few hours" (up to 10 calls over about 26 hours); ' +
      'next-gen webhooks: retried by their retry schema after a failure or no answer within 15 s',
  },
  secrets: {
    option: 'signingSecret',
    howToCopy:
      "Copy the webhook's signing secret from the Mollie Dashboard → Developers → Webhooks",
    optional: true,
  },
  signature: MOLLIE_SIGNATURE,
  types: EVENT_TYPES,
  checkOptions(options, endpointName) {
    if (options?.signingSecret === undefined && statusClientOf(options) === undefined) {
      throw new WebhookConfigurationError(
        `${endpointLabel(endpointName)} takes no Mollie webhook: set signingSecret (the next-gen ` +
          "webhook's signing secret, Dashboard → Developers → Webhooks) for signed webhooks, " +
          'api: { apiKey } (Dashboard → Developers → API keys) for classic webhooks (id=tr_…), or both.',
      );
    }
    resolveMerchantRefKey(endpointName, options.merchantRefKey);
  },
  // NOTE: the provider keeps what verify() learned for normalize(), and the API calls' budget.
  create: (options, endpointName, secrets) =>
    new MollieWebhookProvider(
      secrets,
      resolveMerchantRefKey(endpointName, options.merchantRefKey),
      statusClientOf(options),
      new ProviderApiCalls({
        endpoint: endpointName,
        kind: KIND,
        provider: 'Mollie',
        budget: options?.apiCallBudget,
      }),
    ),
  extras(options) {
    const statusClient = statusClientOf(options);
    return { statusClient, verifyWithProviderByDefault: statusClient !== undefined };
  },
  cli: {
    title: 'Mollie (next-gen webhooks)',
    secret: "the next-gen webhook's signing secret",
    payload:
      'a next-gen webhook event (resource "event"), signed byte for byte; classic webhooks ' +
      '(id=tr_…) are not signed, the endpoint confirms them with the Mollie API',
    flags: [],
  },
  sample: {
    secret: 'whsec_sample0000000000000000000000',
    body: '{"resource":"event","id":"event_1","type":"payment.paid","entityId":"tr_1","createdAt":"2026-01-01T00:00:00.000Z"}',
  },
});

/**
 * A Mollie webhook endpoint for next-gen webhooks (`signingSecret`), classic webhooks
 * (`api: { apiKey }`), or both at one URL.
 * @throws WebhookConfigurationError at startup when an option cannot work, or neither
 * `signingSecret` nor `api` is given.
 * @example
 * mollieEndpoint({
 *   name: 'mollie',
 *   signingSecret: process.env.MOLLIE_WEBHOOK_SECRET!,
 *   api: { apiKey: process.env.MOLLIE_API_KEY! },
 * })
 */
export function mollieEndpoint(options: MollieEndpointOptions): WebhookEndpoint {
  return mollieProvider.endpoint(options);
}

/** The provider kind of the endpoints it builds: `tenantEndpoint()` reads it. */
mollieEndpoint.kind = KIND;
