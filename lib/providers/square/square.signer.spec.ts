import { createHmac } from 'node:crypto';
import { WebhooksHelper, serialization } from 'square';
import { squareFixtures } from './square.fixtures';
import { signSquareDelivery } from './square.signer';
import { squareEndpoint } from './square.provider';
import { storedEventIds } from '../../spec-support/stored-event-ids';

const KEY = 'gRjS7mWQ0A1sTq2_vX9zLw';
const NOTIFICATION_URL = 'https://shop.example.com/webhooks/square';

describe('signSquareDelivery', () => {
  it.each([
    [
      '{"merchant_id":"MLEFBHHSJGVHD","type":"webhooks.test_notification","event_id":"ac3ac95b-f97d-458c-a6e6-18981597e05f","created_at":"2022-07-13T20:30:59.037339943Z","data":{"type":"webhooks","id":"bc368e64-01aa-407e-b46e-3231809b1129"}}',
      'Ibxx_5AKakO-3qeNVR61Dw',
      'https://webhook.site/679a4f3a-dcfa-49ee-bac5-9d0edad886b9',
      'GF4YkrJgGBDZ9NIYbNXBnMzqb2HoL4RW/S6vkZ9/2N4=',
    ],
    [
      '{"data":{"type":"webhooks","id":">id<"}}',
      'signature-key',
      'https://webhook.site/webhooks',
      'Cxt7+aTi4rKgcA0bC4g9EHdVtLSDWdqccmL5MvihU4U=',
    ],
  ])(
    'reproduces the SDK test vector for %s',
    (payload, signatureKey, notificationUrl, expected) => {
      const delivery = signSquareDelivery({ payload, signatureKey, notificationUrl });
      expect(delivery.headers['x-square-hmacsha256-signature']).toBe(expected);
    },
  );

  it('makes a header node:crypto computes and the official SDK accepts', async () => {
    const delivery = signSquareDelivery({
      payload: squareFixtures.paymentUpdated(),
      signatureKey: KEY,
      notificationUrl: NOTIFICATION_URL,
    });
    const signature = delivery.headers['x-square-hmacsha256-signature'];
    expect(signature).toBe(
      createHmac('sha256', KEY).update(`${NOTIFICATION_URL}${delivery.body}`).digest('base64'),
    );
    const check = (requestBody: string, notificationUrl: string) =>
      WebhooksHelper.verifySignature({
        requestBody,
        signatureHeader: signature,
        signatureKey: KEY,
        notificationUrl,
      });
    await expect(check(delivery.body, NOTIFICATION_URL)).resolves.toBe(true);
    await expect(check(`${delivery.body} `, NOTIFICATION_URL)).resolves.toBe(false);
    await expect(check(delivery.body, `${NOTIFICATION_URL}/`)).resolves.toBe(false);
    expect(delivery).toMatchObject({
      provider: 'square',
      method: 'POST',
      headers: { 'content-type': 'application/json' },
    });
  });

  it('names the event id a Square endpoint stores the event under', async () => {
    const payload = squareFixtures.paymentUpdated({ status: 'COMPLETED', orderId: 'order-42' });
    const options = { signatureKey: KEY, notificationUrl: NOTIFICATION_URL };
    const delivery = signSquareDelivery({ ...options, payload });
    const endpoint = squareEndpoint({ name: 'square', ...options });
    expect(await storedEventIds(endpoint, delivery)).toEqual([payload.event_id]);
    expect(delivery.eventId).toBe(payload.event_id);
  });
});

describe('squareFixtures', () => {
  // NOTE: the SDK's own schemas, with unknown keys refused, so a field Square does not send fails.
  const strict = { unrecognizedObjectKeys: 'fail' as const };

  it.each(['COMPLETED', 'APPROVED', 'FAILED', 'CANCELED', 'PENDING'] as const)(
    'builds a %s payment event the SDK schema accepts',
    (status) => {
      for (const [event, schema] of [
        [squareFixtures.paymentCreated({ status }), serialization.PaymentCreatedEvent],
        [squareFixtures.paymentUpdated({ status }), serialization.PaymentUpdatedEvent],
      ] as const) {
        const parsed = schema.parse(event, strict);
        expect(parsed.ok ? [] : parsed.errors).toEqual([]);
      }
    },
  );

  it.each(['COMPLETED', 'PENDING', 'FAILED', 'REJECTED'] as const)(
    'builds a %s refund event the SDK schema accepts',
    (status) => {
      for (const [event, schema] of [
        [squareFixtures.refundCreated({ status }), serialization.RefundCreatedEvent],
        [squareFixtures.refundUpdated({ status }), serialization.RefundUpdatedEvent],
      ] as const) {
        const parsed = schema.parse(event, strict);
        expect(parsed.ok ? [] : parsed.errors).toEqual([]);
      }
    },
  );

  it('would notice a field Square does not send', () => {
    const event = squareFixtures.paymentUpdated();
    const payment = event.data.object.payment as Record<string, unknown>;
    const parsed = serialization.PaymentUpdatedEvent.parse(
      { ...event, data: { ...event.data, object: { payment: { ...payment, version: 3 } } } },
      strict,
    );
    expect(parsed.ok).toBe(false);
  });

  it('builds dispute events the SDK schema accepts', () => {
    for (const [event, schema] of [
      [squareFixtures.disputeCreated(), serialization.DisputeCreatedEvent],
      [
        squareFixtures.disputeStateUpdated({ state: 'LOST' }),
        serialization.DisputeStateUpdatedEvent,
      ],
    ] as const) {
      const parsed = schema.parse(event, strict);
      expect(parsed.ok ? [] : parsed.errors).toEqual([]);
    }
  });

  it('uses Square’s id formats: UUID event ids, 29-character payment ids, refund ids under the payment', () => {
    const payment = squareFixtures.paymentUpdated({ orderId: 'order-42', amount: 1099 });
    expect(payment.event_id).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
    expect(payment.data.id).toMatch(/^[A-Za-z0-9]{29}$/);
    expect(payment.data.object.payment).toMatchObject({
      id: payment.data.id,
      reference_id: 'order-42',
      amount_money: { amount: 1099, currency: 'USD' },
    });
    const refund = squareFixtures.refundUpdated({ paymentId: payment.data.id });
    expect(refund.data.id).toMatch(new RegExp(`^${payment.data.id}_[A-Za-z0-9]{43}$`));
  });
});
