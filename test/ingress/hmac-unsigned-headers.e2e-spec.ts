import { hmacEndpoint } from 'nestjs-payment-webhooks';
import { signHmac } from 'nestjs-payment-webhooks/testing';
import { post } from '../support/http';
import { WebhookEventEntity } from '../support/internals';
import { eventually, startTestApp, TestApp, TestEffect } from '../support/test-app';

/**
 * The documented GitHub-style endpoint: the signature covers the body alone, so neither a new
 * `X-GitHub-Delivery` nor an `X-GitHub-Event: payment.succeeded` on a captured body may make a
 * new event or run the payment handlers.
 */

const SECRET = 'hmac-unsigned-headers';
const SIGNATURE_HEADER = 'x-hub-signature-256';

let app: TestApp;

beforeAll(async () => {
  app = await startTestApp({
    platform: 'express',
    database: 'sqlite',
    webhooks: {
      endpoints: [
        hmacEndpoint({
          name: 'github',
          kind: 'github',
          secret: SECRET,
          signatureHeader: SIGNATURE_HEADER,
          signaturePrefix: 'sha256=',
          typeHeader: 'x-github-event',
          trustUnsignedHeaders: true,
        }),
      ],
      dispatch: { pollIntervalMs: 50 },
    },
  });
});

afterAll(() => app.close());

function send(body: string, headers: Record<string, string>) {
  return post(`${app.url}/webhooks/github`, body, {
    ...signHmac({
      payload: body,
      secret: SECRET,
      signatureHeader: SIGNATURE_HEADER,
      signaturePrefix: 'sha256=',
    }),
    ...headers,
  });
}

function events(): Promise<WebhookEventEntity[]> {
  return app.dataSource.getRepository(WebhookEventEntity).find({ where: { endpoint: 'github' } });
}

it('refuses at startup an id header the signature does not cover', () => {
  expect(() =>
    hmacEndpoint({
      name: 'github',
      secret: SECRET,
      signatureHeader: SIGNATURE_HEADER,
      eventIdHeader: 'x-github-delivery',
    }),
  ).toThrow(/eventIdHeader "x-github-delivery" is not covered by the signature/);
});

it('keys a resent body on the signed body, whatever delivery id comes with it', async () => {
  const body = JSON.stringify({ action: 'completed', check_run: { id: 1 } });
  for (const delivery of ['d-1', 'd-2', 'd-3']) {
    const response = await send(body, {
      'x-github-event': 'check_run',
      'x-github-delivery': delivery,
    });
    expect(response.status).toBe(200);
  }
  const rows = await events();
  expect(rows).toHaveLength(1);
  expect(rows[0]).toMatchObject({ type: 'github:check_run', deliveryCount: 3 });
  expect(rows[0].eventId).toMatch(/^sha256:[0-9a-f]{64}$/);
});

it('never runs the payment handlers for a type written in the unsigned header', async () => {
  const body = JSON.stringify({
    action: 'created',
    type: 'payment.succeeded',
    data: { orderId: 'o-1' },
  });
  expect((await send(body, { 'x-github-event': 'payment.succeeded' })).status).toBe(200);
  await eventually(async () =>
    (await events()).some(
      (row) => row.nativeType === 'payment.succeeded' && row.status !== 'pending',
    ),
  );
  const row = (await events()).find((event) => event.nativeType === 'payment.succeeded');
  expect(row).toMatchObject({ type: 'github:payment.succeeded', status: 'ignored' });
  expect(await app.dataSource.getRepository(TestEffect).count()).toBe(0);
});
