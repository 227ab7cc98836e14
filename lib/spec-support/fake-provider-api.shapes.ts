// The fake provider API's shapes (what a test configures and reads back) and the helpers its
// server answers with; the server itself is FakeProviderApi in ./fake-provider-api.ts.
import { createHash } from 'node:crypto';
import { IncomingMessage, ServerResponse } from 'node:http';

/** The providers the fake serves. */
export type FakeProviderKind = 'stripe' | 'yookassa' | 'tbank' | 'sber';

/** Every provider kind the fake serves. */
export const FAKE_PROVIDER_KINDS: readonly FakeProviderKind[] = [
  'stripe',
  'yookassa',
  'tbank',
  'sber',
];

/** Credentials the fake accepts, per provider. */
export interface FakeProviderCredentials {
  /** Stripe: the API key expected as `Authorization: Bearer <apiKey>`. */
  readonly stripe: { readonly apiKey: string };
  /** YooKassa: HTTP Basic `shopId:secretKey`. */
  readonly yookassa: { readonly shopId: string; readonly secretKey: string };
  /** T-Bank: the terminal key in the body and the password the `Token` is made with. */
  readonly tbank: { readonly terminalKey: string; readonly password: string };
  /** Sber: either `userName` + `password` or `token`, as form fields. */
  readonly sber: { readonly userName: string; readonly password: string; readonly token: string };
}

/** The credentials a fake started without options accepts. */
export const FAKE_PROVIDER_CREDENTIALS: FakeProviderCredentials = Object.freeze({
  stripe: { apiKey: 'sk_test_fake_provider_api_key_4eC39HqLyjWDarjtT1zdp7dc' },
  yookassa: { shopId: '100500', secretKey: 'test_fake_yookassa_secret_Fh8hUAVVBGUGkjm' },
  tbank: { terminalKey: 'FakeTerminalDEMO', password: 'fake-terminal-password-7wqy8w821' },
  sber: {
    userName: 'fake-shop-api',
    password: 'fake-sber-password-ooc7slpvc',
    token: 'fake-sber-token-61k7sf7ma7p4',
  },
});

/**
 * What `setPayment()` takes per provider: the fields of the provider's own answer (the id is
 * added by the fake). Any other field is passed through as given.
 */
export interface FakePaymentFields {
  /** A PaymentIntent: `status`, `amount` (minor units), `currency` (lower-case), … */
  readonly stripe: {
    readonly status: string;
    readonly amount?: number;
    readonly currency?: string;
    readonly last_payment_error?: Record<string, unknown> | null;
    readonly [field: string]: unknown;
  };
  /** A payment: `status`, `amount: { value: '10.00', currency: 'RUB' }`, `paid`, … */
  readonly yookassa: {
    readonly status: string;
    readonly amount?: { readonly value: string; readonly currency: string };
    readonly [field: string]: unknown;
  };
  /** A GetState answer: `Status`, `Amount` (kopecks), `OrderId`, … */
  readonly tbank: {
    readonly Status: string;
    readonly Amount?: number;
    readonly OrderId?: string;
    readonly [field: string]: unknown;
  };
  /** A getOrderStatusExtended.do answer: `orderStatus`, `amount`, `currency` ('643'), … */
  readonly sber: {
    readonly orderStatus: number;
    readonly amount?: number;
    readonly currency?: string;
    readonly orderNumber?: string;
    readonly [field: string]: unknown;
  };
}

/** What `setRefund()` takes per provider that looks refunds up on their own. */
export interface FakeRefundFields {
  /** A Refund: `status`, `amount`, `currency`, `payment_intent`, … */
  readonly stripe: {
    readonly status: string;
    readonly amount?: number;
    readonly currency?: string;
    readonly [field: string]: unknown;
  };
  /** A refund: `status`, `payment_id`, `amount: { value, currency }`, … */
  readonly yookassa: {
    readonly status: string;
    readonly amount?: { readonly value: string; readonly currency: string };
    readonly [field: string]: unknown;
  };
}

/** The status client options that reach this fake, per provider. */
export interface FakeClientOptions {
  /** For `StripeStatusClient`. */
  readonly stripe: { readonly apiKey: string; readonly apiUrl: string };
  /** For `YooKassaStatusClient`. */
  readonly yookassa: {
    readonly shopId: string;
    readonly secretKey: string;
    readonly apiUrl: string;
  };
  /** For `TBankStatusClient`. */
  readonly tbank: {
    readonly terminalKey: string;
    readonly password: string;
    readonly apiUrl: string;
  };
  /** For `SberStatusClient` (login and password; the fake accepts `token` as well). */
  readonly sber: { readonly userName: string; readonly password: string; readonly apiUrl: string };
}

/**
 * A failure to serve instead of (or before) the normal answer. Fields combine: `delayMs` with
 * `status` answers the status late; `delayMs` alone answers normally, late.
 */
export interface FakeFailure {
  /** HTTP status to answer with instead of the normal answer. */
  readonly status?: number;
  /**
   * Body sent with `status` (an object is sent as JSON).
   * @default `{"message":"injected failure"}`
   */
  readonly body?: string | Record<string, unknown>;
  /** Extra response headers, e.g. `{ location: '…' }` with a 3xx status. */
  readonly headers?: Readonly<Record<string, string>>;
  /** Waits this long before answering; longer than the client's `timeoutMs` makes it time out. */
  readonly delayMs?: number;
  /** Answers HTTP 200 with a body that is not JSON. */
  readonly invalidJson?: boolean;
  /** Closes the connection without answering (a network error for the client). */
  readonly dropConnection?: boolean;
}

/** A request the fake received, as it arrived. */
export interface FakeProviderRequest {
  /** The provider whose API the path belongs to; undefined for any other path. */
  readonly kind: FakeProviderKind | undefined;
  /** HTTP method. */
  readonly method: string;
  /** Path and query, e.g. `/stripe/v1/payment_intents/pi_123`. */
  readonly url: string;
  /** Headers by lower-cased name. */
  readonly headers: Readonly<Record<string, string | undefined>>;
  /** The raw body. */
  readonly body: string;
  /** The body parsed as JSON, when it is JSON. */
  readonly json?: unknown;
  /** The body parsed as a form, when it is `application/x-www-form-urlencoded`. */
  readonly form?: Readonly<Record<string, string>>;
  /** When it arrived. */
  readonly receivedAt: Date;
}

/** Options of `FakeProviderApi.start()`. */
export interface FakeProviderApiOptions {
  /**
   * Credentials to accept instead of {@link FAKE_PROVIDER_CREDENTIALS}, per provider.
   * @default FAKE_PROVIDER_CREDENTIALS
   */
  readonly credentials?: { readonly [K in FakeProviderKind]?: FakeProviderCredentials[K] };
}

/** Where each provider's API lives on the fake; `apiUrl()` is the server's URL plus this. */
export const API_PATHS: Readonly<Record<FakeProviderKind, string>> = {
  stripe: '/stripe',
  yookassa: '/yookassa/v3',
  tbank: '/tbank/v2',
  sber: '/sber/payment/rest',
};

export interface Answer {
  readonly status: number;
  readonly body: string | Record<string, unknown>;
  readonly headers?: Readonly<Record<string, string>>;
}

export interface QueuedFailure {
  readonly failure: FakeFailure;
  remaining: number;
}

/**
 * The T-Bank token, computed here on its own (not with the library's function) so that the
 * fake checks the client rather than agreeing with it.
 */
export function independentTbankToken(fields: Record<string, unknown>, password: string): string {
  const values: Record<string, string> = { Password: password };
  for (const [key, value] of Object.entries(fields)) {
    if (key !== 'Token' && ['string', 'number', 'boolean'].includes(typeof value)) {
      values[key] = String(value);
    }
  }
  const text = Object.keys(values)
    .sort()
    .map((key) => values[key])
    .join('');
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

export function tbankError(code: string, details: string): Answer {
  return {
    status: 200,
    body: { Success: false, ErrorCode: code, Message: 'Неверные параметры.', Details: details },
  };
}

export function send(res: ServerResponse, answer: Answer): void {
  const text = typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body);
  res.writeHead(answer.status, {
    'content-type':
      typeof answer.body === 'string' ? 'text/plain; charset=utf-8' : 'application/json',
    ...answer.headers,
  });
  res.end(text);
}

export function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

export function recordOf(
  req: IncomingMessage,
  kind: FakeProviderKind | undefined,
  url: string,
  body: string,
): FakeProviderRequest {
  const headers: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  const contentType = headers['content-type'] ?? '';
  let json: unknown;
  try {
    json = body.length > 0 ? JSON.parse(body) : undefined;
  } catch {
    json = undefined;
  }
  const form = contentType.startsWith('application/x-www-form-urlencoded')
    ? Object.fromEntries(new URLSearchParams(body))
    : undefined;
  return {
    kind,
    method: req.method ?? 'GET',
    url,
    headers,
    body,
    json,
    form,
    receivedAt: new Date(),
  };
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
