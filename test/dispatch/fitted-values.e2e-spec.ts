import { hmacEndpoint, PaymentEvent } from 'nestjs-payment-webhooks';
import { fitToColumn } from 'nestjs-payment-webhooks/payments';
import { signHmac } from 'nestjs-payment-webhooks/testing';
import { post } from '../support/http';
import { startRouterApp, RouterTestApp } from '../support/router-app';
import { eventually, TestEffect } from '../support/test-app';

/**
 * Handlers get an event's values as the delivery carried them, NUL included, which PostgreSQL
 * will not store; `fitToColumn()` gives the value as the package stored it, so a handler can
 * write it to a column of its own and join it to the inbox row.
 */

const SECRET = 'hmac-fitted-values';

describe('an event id with a NUL, on PostgreSQL', () => {
  let t: RouterTestApp;
  const seen: PaymentEvent[] = [];

  beforeAll(async () => {
    t = await startRouterApp({
      database: 'postgres',
      webhooks: {
        endpoints: [hmacEndpoint({ name: 'hooks', secret: SECRET })],
        dispatch: { pollIntervalMs: 50 },
      },
      handlers: [
        {
          on: '*',
          name: 'fitted',
          handle: async (event, ctx) => {
            seen.push(event);
            await ctx.manager.insert(TestEffect, {
              eventId: fitToColumn(event.eventId, 255),
              handler: 'fitted',
              merchantRef: event.merchantRef === null ? null : fitToColumn(event.merchantRef, 255),
            });
          },
        },
      ],
    });
  });

  afterAll(() => t.close());

  it('reaches the handler whole, and fitToColumn() gives what the inbox row holds', async () => {
    const id = `evt\u0000${process.pid}-${Date.now().toString(36)}`;
    const body = JSON.stringify({ id, type: 'payment.succeeded', data: { orderId: 'o\u00001' } });
    const answer = await post(
      `${t.url}/webhooks/hooks`,
      body,
      signHmac({ payload: body, secret: SECRET }),
    );
    expect(answer.status).toBe(200);

    await eventually(async () => {
      const rows = (await t.dataSource.query(
        "SELECT status FROM webhook_events WHERE endpoint = 'hooks'",
      )) as { status: string }[];
      return rows[0]?.status === 'processed';
    });
    expect(seen.map((event) => event.eventId)).toEqual([id]);
    const [row] = (await t.dataSource.query(
      "SELECT event_id, merchant_ref FROM webhook_events WHERE endpoint = 'hooks'",
    )) as { event_id: string; merchant_ref: string }[];
    const [effect] = await t.dataSource.getRepository(TestEffect).findBy({ handler: 'fitted' });
    expect(effect.eventId).toBe(row.event_id);
    expect(effect.merchantRef).toBe(row.merchant_ref);
    expect(effect.eventId).toMatch(/^evt\ufffd.*~[0-9a-f]{64}$/);
  });
});
