import { Webhook } from 'standardwebhooks';
import { polarFixtures } from './polar.fixtures';
import { signPolarDelivery } from './polar.signer';
import { polarEndpoint } from './polar.provider';
import { storedEventIds } from '../../spec-support/stored-event-ids';

// NOTE: the SDK's webhooks entry is found through its package exports, which this project's
// TypeScript resolution does not read; the types come from the CommonJS build's own path.
const { validateEvent, WebhookVerificationError } =
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  require('@polar-sh/sdk/webhooks') as typeof import('@polar-sh/sdk/dist/commonjs/webhooks');

// NOTE: a secret in the form Polar generated before September 2026 (whsec_ + a 43-character
// URL-safe token), which signs with its UTF-8 bytes, and one in the spec's form since then.
const UTF8_SECRET = 'whsec_q7Xv2b9LkP0sYc4Nw8Zt1Hd6Rf3Jm5Ga_Ue-Qo2Vy8I';
const STANDARD_SECRET = `whsec_${Buffer.alloc(32, 0x5c).toString('base64')}`;

describe('signPolarDelivery', () => {
  it('signs an older endpoint’s secret so that the Polar SDK’s validateEvent accepts it', () => {
    for (const payload of [
      polarFixtures.orderPaid({ orderId: 'order-42', amount: 1999 }),
      polarFixtures.orderCreated(),
      polarFixtures.orderRefunded(),
      polarFixtures.refundCreated(),
      polarFixtures.refundUpdated({ status: 'failed' }),
    ]) {
      const delivery = signPolarDelivery({ payload, secret: UTF8_SECRET });
      const event = validateEvent(delivery.body, delivery.headers, UTF8_SECRET);
      expect(event).toMatchObject({ type: payload.type, data: { id: payload.data.id } });
    }
  });

  it('is refused by validateEvent under another secret or with a changed body', () => {
    const delivery = signPolarDelivery({ payload: polarFixtures.orderPaid(), secret: UTF8_SECRET });
    expect(() => validateEvent(delivery.body, delivery.headers, `${UTF8_SECRET}x`)).toThrow(
      WebhookVerificationError,
    );
    const changed = delivery.body.replace('"total_amount":1999', '"total_amount":1');
    expect(changed).not.toBe(delivery.body);
    expect(() => validateEvent(changed, delivery.headers, UTF8_SECRET)).toThrow(
      WebhookVerificationError,
    );
  });

  it('signs a spec secret with its decoded key, as standardwebhooks verifies', () => {
    const payload = polarFixtures.orderPaid();
    const delivery = signPolarDelivery({ payload, secret: STANDARD_SECRET });
    expect(new Webhook(STANDARD_SECRET).verify(delivery.body, delivery.headers)).toEqual(payload);
    // NOTE: SDK 0.49 knows only the older key; a spec secret's deliveries are not its to check.
    expect(() => validateEvent(delivery.body, delivery.headers, STANDARD_SECRET)).toThrow(
      WebhookVerificationError,
    );
  });

  it('signs a spec-form secret with its UTF-8 bytes when asked', () => {
    const delivery = signPolarDelivery({
      payload: polarFixtures.orderPaid(),
      secret: STANDARD_SECRET,
      scheme: 'utf8',
    });
    expect(() => validateEvent(delivery.body, delivery.headers, STANDARD_SECRET)).not.toThrow();
  });

  it('refuses the standard scheme for a secret that is not whsec_ + base64', () => {
    expect(() =>
      signPolarDelivery({ payload: '{}', secret: UTF8_SECRET, scheme: 'standard' }),
    ).toThrow(/whsec_/);
  });

  it('sends JSON with a UUID webhook-id, the same one when given', () => {
    const delivery = signPolarDelivery({ payload: polarFixtures.orderPaid(), secret: UTF8_SECRET });
    expect(delivery).toMatchObject({
      provider: 'polar',
      method: 'POST',
      headers: { 'content-type': 'application/json' },
    });
    expect(delivery.eventId).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
    expect(delivery.headers['webhook-id']).toBe(delivery.eventId);
    const retry = signPolarDelivery({ payload: '{}', secret: UTF8_SECRET, id: 'evt-7' });
    expect(retry.headers['webhook-id']).toBe('evt-7');
  });

  it('names the webhook-id a Polar endpoint stores the event under', async () => {
    const delivery = signPolarDelivery({
      payload: polarFixtures.orderPaid({ orderId: 'order-42' }),
      secret: UTF8_SECRET,
    });
    const endpoint = polarEndpoint({ name: 'polar', secret: UTF8_SECRET });
    expect(await storedEventIds(endpoint, delivery)).toEqual([delivery.headers['webhook-id']]);
    expect(delivery.eventId).toBe(delivery.headers['webhook-id']);
  });
});

describe('polarFixtures', () => {
  it('puts the shop’s order id in metadata and the amount with tax in total_amount', () => {
    const event = polarFixtures.orderPaid({ orderId: 'order-42', amount: 1999, currency: 'EUR' });
    expect(event.data).toMatchObject({
      status: 'paid',
      total_amount: 1999,
      currency: 'eur',
      metadata: { orderId: 'order-42' },
    });
    expect((event.data.net_amount as number) + (event.data.tax_amount as number)).toBe(1999);
  });

  it('gives a refund the order’s id and the amount split into amount and tax_amount', () => {
    const order = polarFixtures.orderPaid({ amount: 1190 });
    const refund = polarFixtures.refundCreated({
      polarOrderId: order.data.id as string,
      amount: 1190,
    });
    expect(refund.data).toMatchObject({ order_id: order.data.id, amount: 1000, tax_amount: 190 });
  });
});
