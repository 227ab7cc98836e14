import { IncomingMessage, Server, ServerResponse, createServer } from 'node:http';
import { AddressInfo } from 'node:net';
import { ProviderStatusError } from '../../core/webhook-errors';
import { PaymentStatusQuery } from '../payment-status-client.interface';
import {
  MercadoPagoStatusClient,
  MercadoPagoStatusClientOptions,
} from './mercado-pago-status.client';

const TOKEN = 'APP_USR-5183442017561235-030215-6e3f7b1c2d9a4e8f0b5c1d7a3e9f2b4c-1197520450';
const PAYMENT_ID = '1319485746';
const ORDER_ID = 'ORD01JQ4S4KY8HWQ6NA5PXB65B3D3';

interface Seen {
  readonly method: string;
  readonly url: string;
  readonly authorization?: string;
}

/** A local stand-in of api.mercadopago.com: answers what `answer` sets, records each request. */
let server: Server;
let baseUrl: string;
let seen: Seen[] = [];
let answer: { status: number; body: string } = { status: 200, body: '{}' };

beforeAll(async () => {
  server = createServer((request: IncomingMessage, response: ServerResponse) => {
    seen.push({
      method: request.method ?? '',
      url: request.url ?? '',
      authorization: request.headers.authorization,
    });
    response.writeHead(answer.status, { 'content-type': 'application/json' });
    response.end(answer.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterEach(() => {
  seen = [];
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

function answerWith(body: object, status = 200): void {
  answer = { status, body: JSON.stringify(body) };
}

function client(options: Partial<MercadoPagoStatusClientOptions> = {}): MercadoPagoStatusClient {
  return new MercadoPagoStatusClient({ accessToken: TOKEN, apiUrl: baseUrl, ...options });
}

function paymentQuery(paymentRef: string | null = PAYMENT_ID): PaymentStatusQuery {
  return {
    paymentRef,
    merchantRef: null,
    type: 'mercado-pago:payment.updated',
    nativeType: 'payment.updated',
    payload: { id: 1, type: 'payment', action: 'payment.updated', data: { id: paymentRef } },
  };
}

function orderQuery(): PaymentStatusQuery {
  return {
    paymentRef: ORDER_ID,
    merchantRef: 'order-42',
    type: 'payment.succeeded',
    nativeType: 'order.processed',
    payload: { id: 2, type: 'order', action: 'order.processed', data: { id: ORDER_ID } },
  };
}

async function failure(promise: Promise<unknown>): Promise<ProviderStatusError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ProviderStatusError);
  return error as ProviderStatusError;
}

describe('MercadoPagoStatusClient', () => {
  it('asks GET /v1/payments/{id} with the Access Token as a Bearer token', async () => {
    answerWith({
      id: 1319485746,
      status: 'approved',
      transaction_amount: 19.99,
      currency_id: 'BRL',
    });

    await expect(client().fetchStatus(paymentQuery())).resolves.toEqual({
      paymentRef: PAYMENT_ID,
      status: 'approved',
      type: 'payment.succeeded',
      amount: 1999,
      currency: 'BRL',
      checkedAt: expect.any(Date),
    });
    expect(seen).toEqual([
      { method: 'GET', url: `/v1/payments/${PAYMENT_ID}`, authorization: `Bearer ${TOKEN}` },
    ]);
  });

  it.each([
    ['approved', 'payment.succeeded'],
    ['authorized', 'payment.authorized'],
    ['rejected', 'payment.failed'],
    ['cancelled', 'payment.canceled'],
    ['refunded', 'refund.succeeded'],
    ['charged_back', 'dispute.opened'],
    ['in_mediation', 'dispute.opened'],
    ['pending', undefined],
    ['in_process', undefined],
    ['constructor', undefined],
  ])('maps the payment status %s to %s', async (status, type) => {
    answerWith({ id: 1319485746, status, transaction_amount: 100, currency_id: 'ARS' });
    await expect(client().fetchStatus(paymentQuery())).resolves.toMatchObject({
      status,
      type,
      amount: 10000,
      currency: 'ARS',
    });
  });

  it.each([
    ['CLP', 15990, 15990],
    ['COP', 50000.5, 5000050],
    ['MXN', 0.01, 1],
  ])('puts %s %s in minor units by the currency exponent', async (currency, value, minor) => {
    answerWith({
      id: 1319485746,
      status: 'approved',
      transaction_amount: value,
      currency_id: currency,
    });
    await expect(client().fetchStatus(paymentQuery())).resolves.toMatchObject({
      amount: minor,
      currency,
    });
  });

  it('refuses a CLP amount with decimals as not a decimal amount of its currency', async () => {
    answerWith({
      id: 1319485746,
      status: 'approved',
      transaction_amount: 159.9,
      currency_id: 'CLP',
    });
    const error = await failure(client().fetchStatus(paymentQuery()));
    expect(error.failure).toBe('invalid_response');
  });

  it('asks GET /v1/orders/{id} for an Orders API notification and maps its status', async () => {
    answerWith({ id: ORDER_ID, status: 'processed', total_paid_amount: '19.99', currency: 'BRL' });
    await expect(client().fetchStatus(orderQuery())).resolves.toMatchObject({
      paymentRef: ORDER_ID,
      status: 'processed',
      type: 'payment.succeeded',
      amount: 1999,
      currency: 'BRL',
    });
    expect(seen[0].url).toBe(`/v1/orders/${ORDER_ID}`);
  });

  it('leaves an order amount out when the answer names no currency', async () => {
    answerWith({ id: ORDER_ID, status: 'action_required', total_amount: '19.99' });
    const status = await client().fetchStatus(orderQuery());
    expect(status).toMatchObject({ status: 'action_required', type: undefined });
    expect(status.amount).toBeUndefined();
  });

  it('refuses an answer about another payment', async () => {
    answerWith({ id: 999, status: 'approved' });
    const error = await failure(client().fetchStatus(paymentQuery()));
    expect(error.failure).toBe('invalid_response');
    expect(error.message).toMatch(/another payment/);
  });

  it('says missing_reference without asking when the id cannot be a Mercado Pago id', async () => {
    for (const ref of [null, '../v1/users/me']) {
      const error = await failure(client().fetchStatus(paymentQuery(ref)));
      expect(error.failure).toBe('missing_reference');
    }
    expect(seen).toEqual([]);
  });

  it.each([
    [401, 'unauthorized'],
    [404, 'not_found'],
    [429, 'unavailable'],
    [500, 'unavailable'],
  ])('reports HTTP %s as %s, never quoting the token', async (status, kind) => {
    answer = { status, body: JSON.stringify({ message: `token ${TOKEN} refused`, error: 'bad' }) };
    const error = await failure(client().fetchStatus(paymentQuery()));
    expect(error.failure).toBe(kind);
    expect(error.message).not.toContain(TOKEN);
  });

  it('refuses a missing token and names where to find it', () => {
    expect(() => new MercadoPagoStatusClient({ accessToken: '' })).toThrow(
      /accessToken is required.*Access Token/,
    );
  });
});
