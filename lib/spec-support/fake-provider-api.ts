import { IncomingMessage, Server, ServerResponse, createServer } from 'node:http';
import { AddressInfo } from 'node:net';
import {
  Answer,
  FAKE_PROVIDER_CREDENTIALS,
  FAKE_PROVIDER_KINDS,
  FakeProviderCredentials,
  API_PATHS,
  FakeClientOptions,
  FakeFailure,
  FakePaymentFields,
  FakeProviderApiOptions,
  FakeProviderKind,
  FakeProviderRequest,
  FakeRefundFields,
  QueuedFailure,
  independentTbankToken,
  isObject,
  readBody,
  recordOf,
  send,
  tbankError,
} from './fake-provider-api.shapes';

export { FAKE_PROVIDER_CREDENTIALS, FAKE_PROVIDER_KINDS } from './fake-provider-api.shapes';
export type {
  FakeClientOptions,
  FakeFailure,
  FakePaymentFields,
  FakeProviderApiOptions,
  FakeProviderCredentials,
  FakeProviderKind,
  FakeProviderRequest,
  FakeRefundFields,
} from './fake-provider-api.shapes';

/**
 * A local stand-in for the status APIs of Stripe, YooKassa, T-Bank and Sber: a real HTTP server
 * on 127.0.0.1 (port chosen by the system) that answers lookups from an in-memory map of
 * payments and refunds, checks credentials the way each provider does, records every request,
 * and can be told to fail. Start one with {@link FakeProviderApi.start}; one fake serves
 * all four APIs at once, each under its own path (see {@link FakeProviderApi.apiUrl}).
 *
 * Refusals look like the providers' own: Stripe and YooKassa answer 401 to wrong credentials and
 * 404 to an unknown id, each with its error body; T-Bank answers HTTP 200 with `Success: false`
 * and `ErrorCode` 501 (unknown terminal), 204 (wrong `Token`) or 255 (unknown payment); Sber
 * answers HTTP 200 with `errorCode` 5 (wrong credentials), 6 (unknown order) or 1 (no orderId).
 *
 * @example
 * const fake = await FakeProviderApi.start();
 * fake.setPayment('yookassa', paymentId, {
 *   status: 'succeeded',
 *   amount: { value: '10.00', currency: 'RUB' },
 * });
 * const client = new YooKassaStatusClient(fake.clientOptions('yookassa'));
 * await client.fetchStatus(query); // → { type: 'payment.succeeded', amount: 1000, … }
 * fake.failNext('yookassa', { status: 503 }); // the next YooKassa request gets a 503
 * await fake.close();
 */
export class FakeProviderApi {
  /** The server's base URL, e.g. `http://127.0.0.1:41234`. */
  readonly url: string;

  private readonly credentials: FakeProviderCredentials;
  private readonly payments = new Map<string, Record<string, unknown>>();
  private readonly refunds = new Map<string, Record<string, unknown>>();
  private readonly stripeEvents = new Map<string, Record<string, unknown>>();
  private readonly stripeObjects = new Map<string, Record<string, unknown>>();
  private readonly stripeAccounts = new Map<string, string>();
  private readonly failures = new Map<FakeProviderKind, QueuedFailure[]>();
  private readonly received: FakeProviderRequest[] = [];
  private readonly timers = new Set<NodeJS.Timeout>();

  private constructor(
    private readonly server: Server,
    credentials: FakeProviderCredentials,
  ) {
    const { port } = server.address() as AddressInfo;
    this.url = `http://127.0.0.1:${port}`;
    this.credentials = credentials;
  }

  /** Starts a fake on 127.0.0.1 on a free port. Close it with {@link close}. */
  static async start(options: FakeProviderApiOptions = {}): Promise<FakeProviderApi> {
    const credentials: FakeProviderCredentials = {
      ...FAKE_PROVIDER_CREDENTIALS,
      ...options.credentials,
    };
    const server = createServer();
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    const fake = new FakeProviderApi(server, credentials);
    server.on('request', (req: IncomingMessage, res: ServerResponse) => {
      void fake.handle(req, res);
    });
    return fake;
  }

  /** The `apiUrl` to give a status client of `kind` so that it asks this fake. */
  apiUrl(kind: FakeProviderKind): string {
    return `${this.url}${API_PATHS[kind]}`;
  }

  /** Complete status client options (accepted credentials and `apiUrl`) for `kind`. */
  clientOptions<K extends FakeProviderKind>(kind: K): FakeClientOptions[K] {
    const options: FakeClientOptions = {
      stripe: { ...this.credentials.stripe, apiUrl: this.apiUrl('stripe') },
      yookassa: { ...this.credentials.yookassa, apiUrl: this.apiUrl('yookassa') },
      tbank: { ...this.credentials.tbank, apiUrl: this.apiUrl('tbank') },
      sber: {
        userName: this.credentials.sber.userName,
        password: this.credentials.sber.password,
        apiUrl: this.apiUrl('sber'),
      },
    };
    return options[kind];
  }

  /** The credentials this fake accepts. */
  credentialsFor<K extends FakeProviderKind>(kind: K): FakeProviderCredentials[K] {
    return this.credentials[kind];
  }

  /**
   * Puts (or replaces) a payment the API of `kind` answers lookups of `id` with. For Stripe it is
   * a PaymentIntent (`pi_…`), for YooKassa a payment, for T-Bank a `PaymentId`, for Sber an
   * order id (`mdOrder`).
   */
  setPayment<K extends FakeProviderKind>(kind: K, id: string, fields: FakePaymentFields[K]): this {
    this.payments.set(`${kind}:${id}`, { ...fields });
    return this;
  }

  /** Puts (or replaces) a refund of Stripe (`re_…`) or YooKassa. */
  setRefund<K extends keyof FakeRefundFields>(
    kind: K,
    id: string,
    fields: FakeRefundFields[K],
  ): this {
    this.refunds.set(`${kind}:${id}`, { ...fields });
    return this;
  }

  /**
   * Puts (or replaces) a Stripe event that `GET /v2/core/events/{id}` answers with (`object:
   * 'v2.core.event'` and the id are added).
   */
  setStripeEvent(id: string, fields: Record<string, unknown>): this {
    this.stripeEvents.set(id, { ...fields });
    return this;
  }

  /**
   * Puts (or replaces) the object Stripe answers `GET {path}` with, e.g. a Charge at
   * `/v1/charges/ch_…` (a PaymentIntent or Refund set with `setPayment()`/`setRefund()` is
   * answered at its own path already).
   */
  setStripeObject(path: string, body: Record<string, unknown>): this {
    this.stripeObjects.set(path, { ...body });
    return this;
  }

  /**
   * Makes the Stripe object or event `id` (an object given to `setStripeObject()` without an
   * `id`: its path) one of connected account `account`: as at Stripe, it is found only by a request carrying
   * that account's `Stripe-Context` or `Stripe-Account` header, and a request with another
   * account's header finds nothing of the platform's.
   */
  setStripeAccount(id: string, account: string): this {
    this.stripeAccounts.set(id, account);
    return this;
  }

  /** Forgets a payment, so lookups of it answer "not found" again. */
  deletePayment(kind: FakeProviderKind, id: string): this {
    this.payments.delete(`${kind}:${id}`);
    return this;
  }

  /**
   * Serves `failure` to the next `times` requests to the API of `kind` (after any failures
   * queued before); requests after that are answered normally.
   */
  failNext(kind: FakeProviderKind, failure: FakeFailure, times = 1): this {
    if (!Number.isSafeInteger(times) || times < 1) {
      throw new Error(`failNext: times must be a positive integer, got ${times}`);
    }
    const queue = this.failures.get(kind) ?? [];
    queue.push({ failure, remaining: times });
    this.failures.set(kind, queue);
    return this;
  }

  /** Every request received so far, oldest first. */
  get requests(): readonly FakeProviderRequest[] {
    return [...this.received];
  }

  /** The requests received by the API of `kind`, oldest first. */
  requestsTo(kind: FakeProviderKind): readonly FakeProviderRequest[] {
    return this.received.filter((request) => request.kind === kind);
  }

  /** Forgets payments, refunds, queued failures and recorded requests. */
  reset(): void {
    this.payments.clear();
    this.refunds.clear();
    this.stripeEvents.clear();
    this.stripeObjects.clear();
    this.stripeAccounts.clear();
    this.failures.clear();
    this.received.length = 0;
  }

  /** Stops the server, dropping any answer still delayed. */
  async close(): Promise<void> {
    for (const timer of this.timers) {
      clearTimeout(timer);
    }
    this.timers.clear();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let body: string;
    try {
      body = await readBody(req);
    } catch {
      // NOTE: the client went away while sending; there is no one to answer.
      return;
    }
    const url = req.url ?? '/';
    const kind = FAKE_PROVIDER_KINDS.find((candidate) =>
      url.startsWith(`${API_PATHS[candidate]}/`),
    );
    const request = recordOf(req, kind, url, body);
    this.received.push(request);
    const failure = kind === undefined ? undefined : this.takeFailure(kind);
    if (failure?.delayMs !== undefined) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          this.timers.delete(timer);
          resolve();
        }, failure.delayMs);
        this.timers.add(timer);
      });
    }
    if (res.destroyed || req.socket.destroyed) {
      return;
    }
    if (failure?.dropConnection) {
      req.socket.destroy();
      return;
    }
    if (failure?.invalidJson) {
      send(res, { status: 200, body: '{"id": "unterminated', headers: failure.headers });
      return;
    }
    if (failure?.status !== undefined) {
      send(res, {
        status: failure.status,
        body: failure.body ?? { message: 'injected failure' },
        headers: failure.headers,
      });
      return;
    }
    send(res, this.answer(kind, request));
  }

  private takeFailure(kind: FakeProviderKind): FakeFailure | undefined {
    const queue = this.failures.get(kind);
    const next = queue?.[0];
    if (queue === undefined || next === undefined) {
      return undefined;
    }
    next.remaining -= 1;
    if (next.remaining === 0) {
      queue.shift();
    }
    return next.failure;
  }

  private answer(kind: FakeProviderKind | undefined, request: FakeProviderRequest): Answer {
    const path = kind === undefined ? request.url : request.url.slice(API_PATHS[kind].length);
    switch (kind) {
      case 'stripe':
        return this.stripe(request, path);
      case 'yookassa':
        return this.yookassa(request, path);
      case 'tbank':
        return this.tbank(request, path);
      case 'sber':
        return this.sber(request, path);
      default:
        return { status: 404, body: { message: `No fake provider API at ${request.url}` } };
    }
  }

  private stripe(request: FakeProviderRequest, path: string): Answer {
    if (request.headers.authorization !== `Bearer ${this.credentials.stripe.apiKey}`) {
      return {
        status: 401,
        body: {
          error: {
            type: 'invalid_request_error',
            message: 'Invalid API Key provided: sk_test_********',
          },
        },
      };
    }
    const found = request.method === 'GET' ? this.stripeObjectAt(path) : undefined;
    if (found === undefined) {
      return {
        status: 404,
        body: { error: { type: 'invalid_request_error', message: 'Unrecognized request URL' } },
      };
    }
    const { id, object, stored } = found;
    // NOTE: Stripe-Context names the account for any call, Stripe-Account for v1 calls.
    const account = request.headers['stripe-context'] ?? request.headers['stripe-account'];
    if (stored === undefined || this.stripeAccounts.get(id) !== account) {
      return {
        status: 404,
        body: {
          error: {
            code: 'resource_missing',
            type: 'invalid_request_error',
            message: `No such ${object}: '${id}'`,
          },
        },
      };
    }
    return { status: 200, body: { id, object, ...stored } };
  }

  /** What Stripe keeps at `path`: the id and object it names, and what is stored for it. */
  private stripeObjectAt(
    path: string,
  ): { id: string; object: string; stored: Record<string, unknown> | undefined } | undefined {
    const match = /^\/(v1\/payment_intents|v1\/refunds|v2\/core\/events)\/([^/?]+)$/.exec(path);
    if (match !== null) {
      const [, collection, encodedId] = match;
      const id = decodeURIComponent(encodedId);
      if (collection === 'v2/core/events') {
        return { id, object: 'v2.core.event', stored: this.stripeEvents.get(id) };
      }
      const isRefund = collection === 'v1/refunds';
      const stored = (isRefund ? this.refunds : this.payments).get(`stripe:${id}`);
      return { id, object: isRefund ? 'refund' : 'payment_intent', stored };
    }
    const stored = this.stripeObjects.get(path);
    if (stored === undefined) {
      return undefined;
    }
    const id = typeof stored.id === 'string' ? stored.id : path;
    return { id, object: String(stored.object ?? 'object'), stored };
  }

  private yookassa(request: FakeProviderRequest, path: string): Answer {
    const { shopId, secretKey } = this.credentials.yookassa;
    const expected = `Basic ${Buffer.from(`${shopId}:${secretKey}`).toString('base64')}`;
    if (request.headers.authorization !== expected) {
      return {
        status: 401,
        body: {
          type: 'error',
          code: 'invalid_credentials',
          description: 'Authentication by given credentials failed',
        },
      };
    }
    const match = /^\/(payments|refunds)\/([^/?]+)$/.exec(path);
    if (request.method !== 'GET' || match === null) {
      return { status: 404, body: { type: 'error', code: 'not_found', description: 'Not found' } };
    }
    const [, collection, encodedId] = match;
    const id = decodeURIComponent(encodedId);
    const stored = (collection === 'refunds' ? this.refunds : this.payments).get(`yookassa:${id}`);
    if (stored === undefined) {
      const what = collection === 'refunds' ? 'refund' : 'payment';
      return {
        status: 404,
        body: {
          type: 'error',
          code: 'not_found',
          description: `Incorrect ${what}_id. ${what} doesn't exist or access denied.`,
        },
      };
    }
    return { status: 200, body: { id, ...stored } };
  }

  private tbank(request: FakeProviderRequest, path: string): Answer {
    const fields = request.json;
    if (request.method !== 'POST' || path !== '/GetState' || !isObject(fields)) {
      return { status: 404, body: { Success: false, ErrorCode: '9999', Message: 'Not found' } };
    }
    if (fields.TerminalKey !== this.credentials.tbank.terminalKey) {
      return tbankError('501', 'Терминал не найден.');
    }
    if (
      typeof fields.Token !== 'string' ||
      fields.Token !== independentTbankToken(fields, this.credentials.tbank.password)
    ) {
      return tbankError('204', 'Неверный токен. Проверьте пару TerminalKey/SecretKey.');
    }
    const paymentId = String(fields.PaymentId ?? '');
    const stored = this.payments.get(`tbank:${paymentId}`);
    if (stored === undefined) {
      // NOTE: 255 is the code TBankStatusClient reads as "no such payment".
      return tbankError('255', 'Платеж не найден.');
    }
    return {
      status: 200,
      body: {
        Success: true,
        ErrorCode: '0',
        Message: 'OK',
        TerminalKey: this.credentials.tbank.terminalKey,
        PaymentId: paymentId,
        ...stored,
      },
    };
  }

  private sber(request: FakeProviderRequest, path: string): Answer {
    const query = new URL(request.url, this.url).searchParams;
    const params: Record<string, string> = {
      ...Object.fromEntries(query),
      ...request.form,
    };
    if (path.split('?')[0] !== '/getOrderStatusExtended.do') {
      return { status: 404, body: { errorCode: '7', errorMessage: 'Not found' } };
    }
    const { userName, password, token } = this.credentials.sber;
    const authenticated =
      params.token !== undefined
        ? params.token === token
        : params.userName === userName && params.password === password;
    if (!authenticated) {
      return { status: 200, body: { errorCode: '5', errorMessage: 'Access denied' } };
    }
    if (!params.orderId) {
      return {
        status: 200,
        body: { errorCode: '1', errorMessage: 'Expected orderId or orderNumber' },
      };
    }
    const stored = this.payments.get(`sber:${params.orderId}`);
    if (stored === undefined) {
      return { status: 200, body: { errorCode: '6', errorMessage: 'Order not found' } };
    }
    return { status: 200, body: { errorCode: '0', errorMessage: 'Success', ...stored } };
  }
}
