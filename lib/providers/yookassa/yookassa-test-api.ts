import { randomUUID } from 'node:crypto';
import { IncomingMessage, Server, ServerResponse, createServer } from 'node:http';
import { AddressInfo } from 'node:net';
import { YooKassaNotificationObject } from './yookassa.provider';

/** Options of `startYooKassaTestApi()`. */
export interface YooKassaTestApiOptions {
  /**
   * The shop id the API accepts as the user name of HTTP Basic authentication.
   * @default '100500'
   */
  shopId?: string;
  /**
   * The secret key the API accepts as the Basic password.
   * @default 'test_yookassa_test_api_secret_key'
   */
  secretKey?: string;
  /**
   * Payments it knows from the start, by their `id` (e.g. `[yookassaPayment('succeeded')]`).
   * @default none
   */
  payments?: readonly YooKassaNotificationObject[];
  /**
   * Refunds it knows from the start, by their `id` (e.g. `[yookassaRefund()]`).
   * @default none
   */
  refunds?: readonly YooKassaNotificationObject[];
}

/** A request the test API received, with what it answered. */
export interface YooKassaTestApiRequest {
  /** HTTP method. */
  readonly method: string;
  /** Path and query as sent, e.g. `/v3/payments/2f6a8c1e-000f-5000-9000-1b7d3e5a9c42`. */
  readonly path: string;
  /** Request headers by lower-case name. */
  readonly headers: Readonly<Record<string, string | undefined>>;
  /** The HTTP status it answered with. */
  readonly status: number;
}

/** The options a YooKassa status client needs to ask the test API: `yookassaEndpoint()`'s `api`. */
export interface YooKassaTestApiClientOptions {
  /** The shop id the test API accepts. */
  readonly shopId: string;
  /** The secret key the test API accepts. */
  readonly secretKey: string;
  /** The test API's base URL, `url`. */
  readonly apiUrl: string;
}

/** A running stand-in for the YooKassa API v3 status lookups. */
export interface YooKassaTestApi {
  /** Base URL with the version, e.g. `http://127.0.0.1:41234/v3`: the `apiUrl` to give. */
  readonly url: string;
  /**
   * `{ shopId, secretKey, apiUrl }`, to give as `yookassaEndpoint()`'s `api` or pass to
   * `new YooKassaStatusClient()`.
   */
  readonly clientOptions: YooKassaTestApiClientOptions;
  /** What `GET /v3/payments/{id}` answers, by id; change it while the test runs. */
  readonly payments: Map<string, YooKassaNotificationObject>;
  /** What `GET /v3/refunds/{id}` answers, by id; change it while the test runs. */
  readonly refunds: Map<string, YooKassaNotificationObject>;
  /** Every request received so far, oldest first. */
  readonly requests: readonly YooKassaTestApiRequest[];
  /** Stops the server. */
  close(): Promise<void>;
}

const DEFAULT_SHOP_ID = '100500';
const DEFAULT_SECRET_KEY = 'test_yookassa_test_api_secret_key';
const LOOKUP = /^\/v3\/(payments|refunds)\/([^/?#]+)$/;

interface Answer {
  readonly status: number;
  readonly body: Record<string, unknown>;
}

/** YooKassa's error body: `type: 'error'`, a request id, a code and a description. */
function error(status: number, code: string, description: string, parameter?: string): Answer {
  return {
    status,
    body: {
      type: 'error',
      id: randomUUID(),
      code,
      description,
      ...(parameter === undefined ? {} : { parameter }),
    },
  };
}

function byId(objects: readonly YooKassaNotificationObject[] = []) {
  return new Map(objects.map((object) => [object.id, object]));
}

/** The answer to one request, from what the API holds. */
function answer(
  req: IncomingMessage,
  authorization: string,
  stored: Pick<YooKassaTestApi, 'payments' | 'refunds'>,
): Answer {
  // NOTE: YooKassa checks the credentials before it looks at the path, as this does.
  if (req.headers.authorization !== authorization) {
    return error(
      401,
      'invalid_credentials',
      'Error in shopId or secret key. Check their validity. You can reissue the key in the ' +
        'Merchant Profile',
      'Authorization',
    );
  }
  const match = LOOKUP.exec(req.url ?? '');
  if (req.method !== 'GET' || match === null) {
    return error(
      404,
      'not_found',
      `${req.method} ${req.url} is not served here: this test API answers only ` +
        'GET /v3/payments/{id} and GET /v3/refunds/{id}',
    );
  }
  const [, collection, encodedId] = match;
  const id = decodeURIComponent(encodedId);
  const what = collection === 'payments' ? 'payment' : 'refund';
  const object = (collection === 'payments' ? stored.payments : stored.refunds).get(id);
  if (object === undefined) {
    return error(
      404,
      'not_found',
      `Incorrect ${what}_id. ${what === 'payment' ? 'Payment' : 'Refund'} doesn't exist or ` +
        'access denied.',
      `${what}_id`,
    );
  }
  // NOTE: the API names the object asked for; the key decides, whatever id the object carries.
  return { status: 200, body: { ...object, id } };
}

function headersOf(req: IncomingMessage): Record<string, string | undefined> {
  const headers: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return headers;
}

async function listening(server: Server): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  return (server.address() as AddressInfo).port;
}

/**
 * Starts a local stand-in for the YooKassa API on 127.0.0.1 (a free port), for the lookups a
 * YooKassa endpoint makes: `GET /v3/payments/{id}` and `GET /v3/refunds/{id}` with HTTP Basic
 * `shopId:secretKey`, which `verifyWithProvider` (before handlers run), `ctx.fetchStatus()` and
 * reconciliation send. It answers from `payments` and `refunds`, which the test fills (from
 * `yookassaPayment()`, `yookassaRefund()`); an unknown id gets `404` and other credentials
 * `401`, each with YooKassa's error body; every request is recorded in `requests`. Uses
 * `node:http` only. Close it when the test ends.
 * @example
 * const api = await startYooKassaTestApi({ payments: [yookassaPayment('succeeded')] });
 * const endpoint = yookassaEndpoint({
 *   name: 'yookassa',
 *   api: api.clientOptions,
 *   allowedIps: ['127.0.0.1', '::1'],
 * });
 * // … deliver yookassaDelivery({ event: 'payment.succeeded', object: yookassaPayment() })
 * api.payments.set(YOOKASSA_PAYMENT_ID, yookassaPayment('canceled')); // the API now says canceled
 * await api.close();
 */
export async function startYooKassaTestApi(
  options: YooKassaTestApiOptions = {},
): Promise<YooKassaTestApi> {
  const shopId = options.shopId ?? DEFAULT_SHOP_ID;
  const secretKey = options.secretKey ?? DEFAULT_SECRET_KEY;
  const authorization = `Basic ${Buffer.from(`${shopId}:${secretKey}`, 'utf8').toString('base64')}`;
  const stored = { payments: byId(options.payments), refunds: byId(options.refunds) };
  const requests: YooKassaTestApiRequest[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    // NOTE: the lookups carry no body; what else arrives is read and dropped.
    req.resume();
    req.on('end', () => {
      const { status, body } = answer(req, authorization, stored);
      requests.push({
        method: req.method ?? 'GET',
        path: req.url ?? '/',
        headers: headersOf(req),
        status,
      });
      res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
      res.end(JSON.stringify(body));
    });
  });
  const port = await listening(server);
  const url = `http://127.0.0.1:${port}/v3`;
  return {
    url,
    clientOptions: { shopId, secretKey, apiUrl: url },
    ...stored,
    requests,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
