import { randomBytes, randomUUID } from 'node:crypto';
import {
  adyenEndpoint,
  paddleEndpoint,
  qvardEndpoint,
  sberEndpoint,
  squareEndpoint,
  tbankEndpoint,
  tenantEndpoint,
  yoomoneyEndpoint,
  type WebhookEndpoint,
} from 'nestjs-payment-webhooks/express';
import {
  adyenNotificationItem,
  paddleFixtures,
  sberFixtures,
  signAdyenDelivery,
  signPaddleDelivery,
  signQvardDelivery,
  signSberDelivery,
  signSquareDelivery,
  signTBankDelivery,
  signYooMoneyDelivery,
  SignedDelivery,
  squareFixtures,
  tbankFixtures,
  yoomoneyFixtures,
} from 'nestjs-payment-webhooks/testing';
import { post } from '../support/http';
import { RouterTestApp, startRouterApp } from '../support/router-app';
import { countEffects, Database, eventually } from '../support/test-app';

/**
 * A tenant endpoint of every provider kind that signs with a shared secret (Stripe's is in
 * tenant-endpoints.e2e-spec.ts): two tenants with secrets of their own, a delivery signed with
 * one tenant's secret answered exactly at its URL, stored with its tenant and applied once, and
 * refused at the other tenant's URL.
 */

const SQUARE_URL = 'https://shop.example.test/webhooks/square';

/** Each kind's endpoint factory, a tenant's settings made from its secret, and a paid delivery. */
interface Kind {
  readonly kind: string;
  readonly answer: string;
  readonly endpoint: (resolve: (tenant: string) => object | null) => WebhookEndpoint;
  readonly settings: (secret: string) => object;
  readonly paid: (secret: string, orderId: string) => SignedDelivery;
}

const KINDS: readonly Kind[] = [
  {
    kind: 'tbank',
    answer: 'OK',
    endpoint: (resolve) =>
      tenantEndpoint(tbankEndpoint, {
        name: 'merchants-tbank',
        resolveTenant: ({ tenant }) => resolve(tenant) as never,
      }),
    settings: (password) => ({ password }),
    paid: (password, orderId) =>
      signTBankDelivery({ password, payload: tbankFixtures.confirmed({ orderId, amount: 1999 }) }),
  },
  {
    kind: 'sber',
    answer: '',
    endpoint: (resolve) =>
      tenantEndpoint(sberEndpoint, {
        name: 'merchants-sber',
        resolveTenant: ({ tenant }) => resolve(tenant) as never,
      }),
    settings: (callbackToken) => ({ callbackToken }),
    paid: (callbackToken, orderNumber) =>
      signSberDelivery({
        method: 'POST',
        callbackToken,
        payload: sberFixtures.deposited({ orderNumber, amount: 1999 }),
      }),
  },
  {
    kind: 'adyen',
    answer: '[accepted]',
    endpoint: (resolve) =>
      tenantEndpoint(adyenEndpoint, {
        name: 'merchants-adyen',
        resolveTenant: ({ tenant }) => resolve(tenant) as never,
      }),
    settings: (secret) => ({ hmacKey: Buffer.from(secret.padEnd(32, '0')).toString('hex') }),
    paid: (secret, merchantReference) =>
      signAdyenDelivery({
        hmacKey: Buffer.from(secret.padEnd(32, '0')).toString('hex'),
        items: [
          adyenNotificationItem('CAPTURE', {
            merchantReference,
            pspReference: randomBytes(8).toString('hex').toUpperCase(),
            originalReference: randomBytes(8).toString('hex').toUpperCase(),
          }),
        ],
      }),
  },
  {
    kind: 'paddle',
    answer: '',
    endpoint: (resolve) =>
      tenantEndpoint(paddleEndpoint, {
        name: 'merchants-paddle',
        resolveTenant: ({ tenant }) => resolve(tenant) as never,
      }),
    settings: (secret) => ({ secret: `pdl_ntfset_${secret}` }),
    paid: (secret, orderId) =>
      signPaddleDelivery({
        secret: `pdl_ntfset_${secret}`,
        payload: paddleFixtures.transactionCompleted({ orderId, amount: 1999 }),
      }),
  },
  {
    kind: 'yoomoney',
    answer: '',
    endpoint: (resolve) =>
      tenantEndpoint(yoomoneyEndpoint, {
        name: 'merchants-yoomoney',
        resolveTenant: ({ tenant }) => resolve(tenant) as never,
      }),
    settings: (notificationSecret) => ({ notificationSecret }),
    paid: (notificationSecret, label) =>
      signYooMoneyDelivery({
        notificationSecret,
        payload: yoomoneyFixtures.p2pIncoming({ label, amount: '19.99' }),
      }),
  },
  {
    kind: 'square',
    answer: '',
    endpoint: (resolve) =>
      tenantEndpoint(squareEndpoint, {
        name: 'merchants-square',
        notificationUrl: SQUARE_URL,
        resolveTenant: ({ tenant }) => resolve(tenant) as never,
      }),
    settings: (signatureKey) => ({ signatureKey }),
    paid: (signatureKey, orderId) =>
      signSquareDelivery({
        signatureKey,
        notificationUrl: SQUARE_URL,
        payload: squareFixtures.paymentUpdated({ status: 'COMPLETED', orderId, amount: 1999 }),
      }),
  },
  {
    kind: 'qvard',
    answer: '',
    endpoint: (resolve) =>
      tenantEndpoint(qvardEndpoint, {
        name: 'merchants-qvard',
        resolveTenant: ({ tenant }) => resolve(tenant) as never,
      }),
    settings: (secret) => ({ secret }),
    paid: (secret, id) => signQvardDelivery({ secret, payload: { id, status: 'completed' } }),
  },
];

/** Each tenant's secret, the same for every kind. */
const TENANT_SECRETS: Readonly<Record<string, string>> = {
  north: 'north-tenant-secret-7f3a',
  south: 'south-tenant-secret-c21d',
};

describe.each<Database>(['sqlite', 'postgres'])(
  'a tenant endpoint of each kind on %s',
  (database) => {
    let t: RouterTestApp;

    beforeAll(async () => {
      t = await startRouterApp({
        database,
        webhooks: {
          endpoints: KINDS.map(({ endpoint, settings }) =>
            endpoint((tenant) => {
              const secret = TENANT_SECRETS[tenant];
              return secret === undefined ? null : settings(secret);
            }),
          ),
          dispatch: { pollIntervalMs: 50 },
        },
      });
    });
    afterAll(() => t?.close());

    it.each(KINDS)(
      '$kind: answers exactly at the signing tenant, stores its tenant, applies it once, and refuses it at another tenant',
      async ({ kind, answer, paid }) => {
        const orderId = `order-${kind}-${randomUUID()}`;
        const delivery = paid(TENANT_SECRETS.north, orderId);
        const send = (tenant: string) =>
          post(`${t.url}/webhooks/merchants-${kind}/${tenant}`, delivery.body, {
            ...delivery.headers,
          });

        const [first, again] = [await send('north'), await send('north')];
        expect([first.status, again.status]).toEqual([200, 200]);
        expect([first.body, again.body]).toEqual([answer, answer]);
        expect((await send('south')).status).toBe(400);

        const placeholder = database === 'postgres' ? '$1' : '?';
        const rows = (await t.dataSource.query(
          `SELECT tenant, provider, delivery_count FROM webhook_events WHERE merchant_ref = ${placeholder}`,
          [orderId],
        )) as { tenant: string; provider: string; delivery_count: number | string }[];
        expect(rows.map((row) => [row.tenant, row.provider, Number(row.delivery_count)])).toEqual([
          ['north', kind, 2],
        ]);
        const [{ event_id: eventId }] = (await t.dataSource.query(
          `SELECT event_id FROM webhook_events WHERE merchant_ref = ${placeholder}`,
          [orderId],
        )) as { event_id: string }[];
        await eventually(async () => (await countEffects(t, eventId)) === 1);
      },
    );
  },
);
