import { ProviderStatusError } from '../../core/webhook-errors';
import { PaymentStatusQuery } from '../payment-status-client.interface';
import {
  YOOKASSA_PAYMENT_ID,
  YOOKASSA_REFUND_ID,
  yookassaPayment,
  yookassaRefund,
} from './yookassa.fixtures';
import { YooKassaStatusClient } from './yookassa-status.client';
import { YooKassaTestApi, startYooKassaTestApi } from './yookassa-test-api';

let api: YooKassaTestApi;

beforeEach(async () => {
  api = await startYooKassaTestApi({ shopId: '506751', secretKey: 'test_shop_secret' });
});

afterEach(async () => {
  await api.close();
});

function paymentQuery(paymentRef: string = YOOKASSA_PAYMENT_ID): PaymentStatusQuery {
  return {
    paymentRef,
    merchantRef: 'order-1042',
    type: 'payment.succeeded',
    nativeType: 'payment.succeeded',
    payload: { type: 'notification', event: 'payment.succeeded', object: { id: paymentRef } },
  };
}

const REFUND_QUERY: PaymentStatusQuery = {
  paymentRef: YOOKASSA_PAYMENT_ID,
  merchantRef: 'order-1042',
  type: 'refund.succeeded',
  nativeType: 'refund.succeeded',
  payload: { type: 'notification', event: 'refund.succeeded', object: yookassaRefund() },
};

async function failure(promise: Promise<unknown>): Promise<ProviderStatusError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ProviderStatusError);
  return error as ProviderStatusError;
}

function basic(shopId: string, secretKey: string): string {
  return `Basic ${Buffer.from(`${shopId}:${secretKey}`).toString('base64')}`;
}

describe('startYooKassaTestApi', () => {
  it('answers a status client with the payment the test put in, and follows changes to it', async () => {
    api.payments.set(YOOKASSA_PAYMENT_ID, yookassaPayment('waiting_for_capture'));
    const client = new YooKassaStatusClient(api.clientOptions);
    await expect(client.fetchStatus(paymentQuery())).resolves.toMatchObject({
      paymentRef: YOOKASSA_PAYMENT_ID,
      status: 'waiting_for_capture',
      type: 'payment.authorized',
      amount: 10000,
      currency: 'RUB',
    });
    api.payments.set(YOOKASSA_PAYMENT_ID, yookassaPayment('succeeded'));
    await expect(client.fetchStatus(paymentQuery())).resolves.toMatchObject({
      status: 'succeeded',
      type: 'payment.succeeded',
    });
  });

  it('looks refunds up under /v3/refunds, from the objects given at start', async () => {
    await api.close();
    api = await startYooKassaTestApi({ refunds: [yookassaRefund({ status: 'canceled' })] });
    const client = new YooKassaStatusClient(api.clientOptions);
    await expect(client.fetchStatus(REFUND_QUERY)).resolves.toMatchObject({
      paymentRef: YOOKASSA_REFUND_ID,
      status: 'canceled',
      type: 'refund.failed',
    });
    expect(api.requests.map((request) => request.path)).toEqual([
      `/v3/refunds/${YOOKASSA_REFUND_ID}`,
    ]);
  });

  it('answers 404 with YooKassa’s error body for an id it does not hold', async () => {
    const client = new YooKassaStatusClient(api.clientOptions);
    const error = await failure(client.fetchStatus(paymentQuery()));
    expect(error).toMatchObject({ failure: 'not_found', httpStatus: 404 });
    const response = await fetch(`${api.url}/refunds/${YOOKASSA_REFUND_ID}`, {
      headers: { authorization: basic('506751', 'test_shop_secret') },
    });
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({
      type: 'error',
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      code: 'not_found',
      description: "Incorrect refund_id. Refund doesn't exist or access denied.",
      parameter: 'refund_id',
    });
  });

  it('answers 401 to credentials other than the ones it was started with, before any lookup', async () => {
    api.payments.set(YOOKASSA_PAYMENT_ID, yookassaPayment());
    for (const [shopId, secretKey] of [
      ['506751', 'test_other_secret'],
      ['506752', 'test_shop_secret'],
    ]) {
      const client = new YooKassaStatusClient({ shopId, secretKey, apiUrl: api.url });
      const error = await failure(client.fetchStatus(paymentQuery()));
      expect(error).toMatchObject({ failure: 'unauthorized', httpStatus: 401 });
      expect(error.message).not.toContain(secretKey);
    }
    const response = await fetch(`${api.url}/payments/${YOOKASSA_PAYMENT_ID}`);
    expect(response.status).toBe(401);
    expect(await response.json()).toMatchObject({
      type: 'error',
      code: 'invalid_credentials',
      parameter: 'Authorization',
    });
  });

  it('records each request with its method, path, headers and the status it answered', async () => {
    api.payments.set(YOOKASSA_PAYMENT_ID, yookassaPayment());
    const client = new YooKassaStatusClient(api.clientOptions);
    await client.fetchStatus(paymentQuery());
    await failure(client.fetchStatus(paymentQuery('2f6a8c1e-000f-5000-9000-000000000000')));
    await fetch(`${api.url}/payments`, {
      method: 'POST',
      headers: { authorization: basic('506751', 'test_shop_secret') },
      body: '{}',
    });
    expect(api.requests).toEqual([
      {
        method: 'GET',
        path: `/v3/payments/${YOOKASSA_PAYMENT_ID}`,
        headers: expect.objectContaining({
          authorization: basic('506751', 'test_shop_secret'),
          accept: 'application/json',
        }),
        status: 200,
      },
      expect.objectContaining({
        path: '/v3/payments/2f6a8c1e-000f-5000-9000-000000000000',
        status: 404,
      }),
      expect.objectContaining({ method: 'POST', path: '/v3/payments', status: 404 }),
    ]);
  });

  it('answers with the id asked for and listens no more once closed', async () => {
    api.payments.set('2f6a8c1e-000f-5000-9000-00000000abcd', yookassaPayment());
    const response = await fetch(`${api.url}/payments/2f6a8c1e-000f-5000-9000-00000000abcd`, {
      headers: { authorization: basic('506751', 'test_shop_secret') },
    });
    expect(await response.json()).toMatchObject({
      id: '2f6a8c1e-000f-5000-9000-00000000abcd',
      status: 'succeeded',
      metadata: { orderId: 'order-1042' },
    });
    await api.close();
    await expect(fetch(`${api.url}/payments/x`)).rejects.toThrow();
  });
});
