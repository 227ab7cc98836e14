import { IncomingMessage, Server, ServerResponse, createServer } from 'node:http';
import { AddressInfo } from 'node:net';
import braintree from 'braintree';
import { ProviderStatusError, WebhookConfigurationError } from '../../core/webhook-errors';
import { PaymentStatusQuery } from '../payment-status-client.interface';
import { BraintreeStatusClient, BraintreeStatusClientOptions } from './braintree-status.client';

const PUBLIC_KEY = 'v4ndq314c2s5c28r';
const PRIVATE_KEY = '93b78bc88be90d93ac282e50ae569fdd';
const AUTHORIZATION = `Basic ${Buffer.from(`${PUBLIC_KEY}:${PRIVATE_KEY}`).toString('base64')}`;

interface Recorded {
  readonly path: string;
  readonly headers: IncomingMessage['headers'];
  readonly body: { query: string; variables?: Record<string, string> };
}

/**
 * Braintree's GraphQL endpoint as far as the client uses it: `idFromLegacyId` makes a global id
 * (never checking that the object exists, as Braintree's does not), `node` answers the
 * transactions and refunds it holds, every error is a 200 with an `errors` list.
 */
class FakeBraintreeGraphQL {
  readonly requests: Recorded[] = [];
  readonly nodes = new Map<string, Record<string, unknown>>();
  /** The next answer, in place of the computed one. */
  override?: { status: number; body: unknown };

  private constructor(
    private readonly server: Server,
    readonly port: number,
  ) {}

  static async start(): Promise<FakeBraintreeGraphQL> {
    const handlers: ((req: IncomingMessage, res: ServerResponse) => void)[] = [];
    const server = createServer((req, res) => handlers[0]?.(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const fake = new FakeBraintreeGraphQL(server, (server.address() as AddressInfo).port);
    handlers.push((req, res) => fake.handle(req, res));
    return fake;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}/graphql`;
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    let text = '';
    req.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
    req.on('end', () => {
      const body = JSON.parse(text) as Recorded['body'];
      // NOTE: the SDK writes the whole URL as the request target.
      this.requests.push({
        path: new URL(req.url ?? '', 'http://x').pathname,
        headers: req.headers,
        body,
      });
      const answer = this.override ?? { status: 200, body: this.answer(req, body) };
      this.override = undefined;
      res.writeHead(answer.status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(answer.body));
    });
  }

  private answer(req: IncomingMessage, { query, variables = {} }: Recorded['body']): unknown {
    if (req.headers.authorization !== AUTHORIZATION) {
      return error('AUTHENTICATION', 'Authentication failed.');
    }
    if (query.includes('idFromLegacyId')) {
      const id = Buffer.from(`${variables.type.toLowerCase()}_${variables.legacyId}`).toString(
        'base64url',
      );
      return { data: { idFromLegacyId: id }, extensions: { requestId: 'r1' } };
    }
    const node = this.nodes.get(variables.id);
    return node === undefined
      ? { data: { node: null }, ...error('NOT_FOUND', 'An object with this ID was not found.') }
      : { data: { node }, extensions: { requestId: 'r2' } };
  }

  /** Holds a transaction (or refund) under the global id idFromLegacyId makes for it. */
  hold(type: 'TRANSACTION' | 'REFUND', legacyId: string, fields: Record<string, unknown>): void {
    const id = Buffer.from(`${type.toLowerCase()}_${legacyId}`).toString('base64url');
    this.nodes.set(id, { legacyId, ...fields });
  }
}

function error(errorClass: string, message: string) {
  return { errors: [{ message, extensions: { errorClass } }], extensions: { requestId: 'r0' } };
}

let fake: FakeBraintreeGraphQL;

beforeAll(async () => {
  fake = await FakeBraintreeGraphQL.start();
});

afterEach(() => {
  fake.requests.length = 0;
  fake.nodes.clear();
});

afterAll(() => fake.close());

function client(options: Partial<BraintreeStatusClientOptions> = {}): BraintreeStatusClient {
  return new BraintreeStatusClient({
    publicKey: PUBLIC_KEY,
    privateKey: PRIVATE_KEY,
    apiUrl: fake.url,
    ...options,
  });
}

function query(paymentRef: string | null, payload: unknown = {}): PaymentStatusQuery {
  return {
    paymentRef,
    merchantRef: null,
    type: 'payment.succeeded',
    nativeType: 'transaction_settled',
    payload,
  };
}

async function failure(promise: Promise<unknown>): Promise<ProviderStatusError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ProviderStatusError);
  expect((error as Error).message).not.toContain(PRIVATE_KEY);
  expect((error as Error).message).not.toContain(AUTHORIZATION.slice(6));
  return error as ProviderStatusError;
}

describe('BraintreeStatusClient', () => {
  it('turns the legacy id into a GraphQL id, then reads the transaction', async () => {
    fake.hold('TRANSACTION', 'cwn1ah7f', {
      status: 'SETTLED',
      amount: { value: '19.99', currencyCode: 'USD' },
    });
    await expect(client().fetchStatus(query('cwn1ah7f'))).resolves.toMatchObject({
      paymentRef: 'cwn1ah7f',
      status: 'SETTLED',
      type: 'payment.succeeded',
      amount: 1999,
      currency: 'USD',
    });
    expect(fake.requests.map((r) => r.body.variables)).toEqual([
      { legacyId: 'cwn1ah7f', type: 'TRANSACTION' },
      { id: Buffer.from('transaction_cwn1ah7f').toString('base64url') },
    ]);
    expect(fake.requests[0].headers).toMatchObject({
      authorization: AUTHORIZATION,
      'braintree-version': '2019-01-01',
      'content-type': 'application/json',
    });
  });

  it('sends the credentials as the official SDK does to the same endpoint', async () => {
    const gateway = new braintree.BraintreeGateway({
      // NOTE: an environment of the SDK's own shape, its GraphQL server the fake.
      environment: new (
        braintree.Environment as unknown as new (...args: unknown[]) => braintree.Environment
      )('127.0.0.1', fake.port, '', false, '127.0.0.1', fake.port),
      merchantId: 'shopexamplemerch',
      publicKey: PUBLIC_KEY,
      privateKey: PRIVATE_KEY,
    });
    Object.assign(gateway.config.environment, {
      graphQLServer: '127.0.0.1',
      graphQLPort: fake.port,
    });
    const sdk = (
      gateway as unknown as { graphQLClient: { query(q: string, v: object): Promise<unknown> } }
    ).graphQLClient;
    fake.hold('TRANSACTION', 'cwn1ah7f', {
      status: 'VOIDED',
      amount: { value: '5', currencyCode: 'JPY' },
    });
    const answer = (await sdk.query('query { idFromLegacyId }', {
      legacyId: 'cwn1ah7f',
      type: 'TRANSACTION',
    })) as { data: { idFromLegacyId: string } };
    const ours = await client().fetchStatus(query('cwn1ah7f'));
    expect(fake.requests[0].headers.authorization).toBe(fake.requests[1].headers.authorization);
    expect(answer.data.idFromLegacyId).toBe(fake.requests[2].body.variables?.id);
    expect(ours).toMatchObject({ type: 'payment.canceled', amount: 5, currency: 'JPY' });
    // The SDK refuses a NOT_FOUND answer as NotFoundError; the client says not_found.
    await expect(sdk.query('query { node }', { id: 'nope' })).rejects.toMatchObject({
      name: 'notFoundError',
    });
  });

  it.each([
    ['SETTLED', 'payment.succeeded'],
    ['SUBMITTED_FOR_SETTLEMENT', 'payment.succeeded'],
    ['AUTHORIZED', 'payment.authorized'],
    ['PROCESSOR_DECLINED', 'payment.failed'],
    ['SETTLEMENT_DECLINED', 'payment.failed'],
    ['VOIDED', 'payment.canceled'],
    ['SETTLEMENT_PENDING', undefined],
  ])('maps a transaction %s to %s', async (status, type) => {
    fake.hold('TRANSACTION', 'tx1', { status, amount: { value: '1.00', currencyCode: 'USD' } });
    await expect(client().fetchStatus(query('tx1'))).resolves.toMatchObject({ status, type });
  });

  it('reads the refund of a refund’s notification, not the refunded sale', async () => {
    fake.hold('REFUND', 'rf000001', {
      status: 'SETTLED',
      amount: { value: '5.00', currencyCode: 'EUR' },
    });
    const payload = { subject: { transaction: { id: 'rf000001', type: 'credit' } } };
    await expect(client().fetchStatus(query('cwn1ah7f', payload))).resolves.toMatchObject({
      paymentRef: 'rf000001',
      type: 'refund.succeeded',
      amount: 500,
    });
    expect(fake.requests[0].body.variables).toEqual({ legacyId: 'rf000001', type: 'REFUND' });
  });

  it('says not_found for a transaction Braintree does not know', async () => {
    const error = await failure(client().fetchStatus(query('unknown1')));
    expect(error).toMatchObject({ failure: 'not_found', httpStatus: 200 });
    expect(error.message).toMatch(/NOT_FOUND/);
  });

  it('says unauthorized when the API key is refused', async () => {
    const error = await failure(
      client({ privateKey: 'ffffffffffffffffffffffffffffffff' }).fetchStatus(query('tx1')),
    );
    expect(error).toMatchObject({ failure: 'unauthorized' });
  });

  it.each([
    [{ status: 200, body: error('SERVICE_AVAILABILITY', 'down') }, 'unavailable'],
    [{ status: 503, body: { errors: [{ message: 'down' }] } }, 'unavailable'],
    [{ status: 401, body: {} }, 'unauthorized'],
    [{ status: 200, body: { extensions: {} } }, 'invalid_response'],
    [{ status: 200, body: error('VALIDATION', 'bad query') }, 'invalid_response'],
  ])('maps the answer %j to %s', async (answer, kind) => {
    fake.override = answer;
    expect(await failure(client().fetchStatus(query('tx1')))).toMatchObject({ failure: kind });
  });

  it('refuses an answer about another transaction', async () => {
    fake.hold('TRANSACTION', 'tx1', { status: 'SETTLED' });
    fake.nodes.set(Buffer.from('transaction_tx1').toString('base64url'), {
      legacyId: 'tx2',
      status: 'SETTLED',
    });
    expect(await failure(client().fetchStatus(query('tx1')))).toMatchObject({
      failure: 'invalid_response',
    });
  });

  it('needs a transaction id, and asks nothing without one', async () => {
    expect(await failure(client().fetchStatus(query(null)))).toMatchObject({
      failure: 'missing_reference',
    });
    expect(await failure(client().fetchStatus(query('../x')))).toMatchObject({
      failure: 'missing_reference',
    });
    expect(fake.requests).toHaveLength(0);
  });

  it('uses production unless told otherwise, and checks its options at startup', () => {
    const make = (options: Partial<BraintreeStatusClientOptions>) => () =>
      new BraintreeStatusClient({ publicKey: PUBLIC_KEY, privateKey: PRIVATE_KEY, ...options });
    expect(make({})).not.toThrow();
    expect(make({ environment: 'live' as never })).toThrow(WebhookConfigurationError);
    expect(make({ privateKey: ' ' })).toThrow(/privateKey is required/);
    expect(make({ apiUrl: 'ftp://x' })).toThrow(/apiUrl/);
  });
});
