import { createHmac } from 'node:crypto';
import { goCardlessFixtures } from './gocardless.fixtures';
import { signGoCardlessDelivery } from './gocardless.signer';
import { goCardlessEndpoint } from './gocardless.provider';
import { storedEventIds } from '../../spec-support/stored-event-ids';

// NOTE: the SDK's root entry also loads its API client, which needs an ES-module-only uuid; its
// webhooks entry is CommonJS alone. TypeScript finds the types through the root entry.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { parse } = require('gocardless-nodejs/webhooks') as Pick<
  typeof import('gocardless-nodejs'),
  'parse'
>;

const SECRET = 'gc_whsec_Jx4tQm0ZyP8rVb2Ns6Lh';

describe('signGoCardlessDelivery', () => {
  it('reproduces the official SDK test vector', () => {
    const payload = JSON.stringify({
      events: [
        {
          id: 'EV00BD05S5VM2T',
          created_at: '2018-07-05T09:13:51.404Z',
          resource_type: 'subscriptions',
          action: 'created',
          links: { subscription: 'SB0003JJQ2MR06' },
          details: {
            origin: 'api',
            cause: 'subscription_created',
            description: 'Subscription created via the API.',
          },
          metadata: {},
        },
        {
          id: 'EV00BD05TB8K63',
          created_at: '2018-07-05T09:13:56.893Z',
          resource_type: 'mandates',
          action: 'created',
          links: { mandate: 'MD000AMA19XGEC' },
          details: {
            origin: 'api',
            cause: 'mandate_created',
            description: 'Mandate created via the API.',
          },
          metadata: {},
        },
      ],
    });
    const delivery = signGoCardlessDelivery({
      payload,
      secret: 'ED7D658C-D8EB-4941-948B-3973214F2D49',
    });
    expect(delivery.headers['webhook-signature']).toBe(
      '2693754819d3e32d7e8fcb13c729631f316c6de8dc1cf634d6527f1c07276e7e',
    );
  });

  it('makes a header node:crypto computes and the official SDK parses', () => {
    const webhook = goCardlessFixtures.webhook(
      goCardlessFixtures.paymentConfirmed({ orderId: 'order-42' }),
      goCardlessFixtures.refundPaid(),
    );
    const delivery = signGoCardlessDelivery({ payload: webhook, secret: SECRET });
    const header = delivery.headers['webhook-signature'];
    expect(header).toBe(createHmac('sha256', SECRET).update(delivery.body).digest('hex'));
    expect(parse(delivery.body, SECRET, header)).toEqual(webhook.events);
    expect(() => parse(`${delivery.body} `, SECRET, header)).toThrow();
    expect(() => parse(delivery.body, `${SECRET}x`, header)).toThrow();
    expect(delivery).toMatchObject({
      provider: 'gocardless',
      method: 'POST',
      headers: { 'content-type': 'application/json' },
    });
  });

  it('names the id of every event a GoCardless endpoint stores, in order', async () => {
    const events = [
      goCardlessFixtures.paymentConfirmed({ orderId: 'order-42' }),
      goCardlessFixtures.refundPaid(),
    ];
    const delivery = signGoCardlessDelivery({
      payload: goCardlessFixtures.webhook(...events),
      secret: SECRET,
    });
    const endpoint = goCardlessEndpoint({ name: 'gocardless', secret: SECRET });
    const ids = events.map((event) => event.id);
    expect(await storedEventIds(endpoint, delivery)).toEqual(ids);
    expect(delivery).toMatchObject({ eventId: ids[0], eventIds: ids });
  });
});

describe('goCardlessFixtures', () => {
  it('uses GoCardless id formats and puts the order id in resource_metadata', () => {
    const event = goCardlessFixtures.paymentConfirmed({ orderId: 'order-42' });
    expect(event.id).toMatch(/^EV[0-9A-Z]{12}$/);
    expect(event.links.payment).toMatch(/^PM[0-9A-Z]{12}$/);
    expect(event.resource_metadata).toEqual({ orderId: 'order-42' });
    expect(goCardlessFixtures.webhook(event).meta.webhook_id).toMatch(/^WB[0-9A-Z]{12}$/);
    const refund = goCardlessFixtures.refundPaid({ paymentId: event.links.payment });
    expect(refund.links).toMatchObject({ payment: event.links.payment });
    expect(refund.links.refund).toMatch(/^RF[0-9A-Z]{12}$/);
  });

  it('gives every event a new id', () => {
    expect(goCardlessFixtures.paymentConfirmed().id).not.toBe(
      goCardlessFixtures.paymentConfirmed().id,
    );
  });
});
