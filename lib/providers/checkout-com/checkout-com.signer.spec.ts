import { createHmac } from 'node:crypto';
import { checkoutComFixtures } from './checkout-com.fixtures';
import { checkoutComEndpoint, checkoutComProvider } from './checkout-com.provider';
import { signCheckoutComDelivery } from './checkout-com.signer';
import { storedEventIds } from '../../spec-support/stored-event-ids';

const KEY = 'b7f2c3a9-5e1d-4f0a-9c3b-2d8e6f1a4c7e';

describe('signCheckoutComDelivery', () => {
  it('reproduces the known answer for the documented payment_captured example', () => {
    const delivery = signCheckoutComDelivery({
      payload:
        '{"id":"evt_fkfqht6yonme7bk7jawrgzbbxq","source":"gwc_notifier1","type":"payment_captured","timestamp":"2023-05-24T09:12:32.357+00:00","version":"1.0.29","data":{"id":"pay_vti5layihapu5bhbn5tjtk6eem","action_id":"act_uqlj3642dyyuroivzdwfg2fysq","reference":"ORD-5023-4E89","amount":20,"processed_on":"2023-05-24T09:12:27.4695512Z","response_code":"10000","response_summary":"Approved","metadata":{"coupon_code":"NY2018","partner_id":"123989"},"currency":"EUR"}}',
      signatureKey: 'cko-signature-key-example',
    });
    expect(delivery.headers['cko-signature']).toBe(
      'c3594670d3ff4968624d11062cac0e643bb808304ee5bbf12ea4e538ac100a22',
    );
    expect(delivery.eventId).toBe('evt_fkfqht6yonme7bk7jawrgzbbxq');
    expect(delivery.headers.authorization).toBeUndefined();
  });

  it('makes a signature node:crypto computes, with the Authorization key when given', () => {
    const delivery = signCheckoutComDelivery({
      payload: checkoutComFixtures.paymentCaptured(),
      signatureKey: KEY,
      authorization: 'cko-auth-3f9a1c7e5b2d',
    });
    expect(delivery).toMatchObject({
      provider: 'checkout-com',
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'cko-auth-3f9a1c7e5b2d' },
    });
    expect(delivery.headers['cko-signature']).toBe(
      createHmac('sha256', KEY).update(delivery.body).digest('hex'),
    );
    const provider = checkoutComEndpoint({
      name: 'cko',
      signatureKey: KEY,
      authorization: 'cko-auth-3f9a1c7e5b2d',
    }).provider;
    expect(() =>
      provider.verify({
        rawBody: Buffer.from(delivery.body),
        headers: delivery.headers,
        receivedAt: new Date(),
      }),
    ).not.toThrow();
  });

  it('names the event id a Checkout.com endpoint stores the event under', async () => {
    const payload = checkoutComFixtures.paymentCaptured({ reference: 'order-42' });
    const delivery = signCheckoutComDelivery({ payload, signatureKey: KEY });
    const endpoint = checkoutComEndpoint({ name: 'checkout-com', signatureKey: KEY });
    expect(await storedEventIds(endpoint, delivery)).toEqual([payload.id]);
    expect(delivery.eventId).toBe(payload.id);
  });
});

describe('checkoutComProvider.descriptor', () => {
  it('signs for the CLI with --secret and --authorization', () => {
    const text = '{"id":"evt_1","type":"payment_captured","data":{}}';
    const input = { text, json: JSON.parse(text), readFile: () => '' };
    const delivery = checkoutComProvider.descriptor.signing.sign({
      ...input,
      secret: 'cli-key',
      options: { authorization: 'cli-auth' },
    });
    expect(delivery).toMatchObject({
      provider: 'checkout-com',
      body: text,
      eventId: 'evt_1',
      headers: { authorization: 'cli-auth' },
    });
    expect(() => checkoutComProvider.descriptor.signing.sign({ ...input, options: {} })).toThrow(
      '--provider checkout-com needs --secret',
    );
  });
});

describe('checkoutComFixtures', () => {
  it('uses Checkout.com id formats and the documented envelope', () => {
    const event = checkoutComFixtures.paymentCaptured({ reference: 'order-42', amount: 1999 });
    expect(event.id).toMatch(/^evt_[a-z2-7]{26}$/);
    expect(event.data.id).toMatch(/^pay_[a-z2-7]{26}$/);
    expect(event.data.action_id).toMatch(/^act_[a-z2-7]{26}$/);
    expect(event).toMatchObject({
      type: 'payment_captured',
      data: { reference: 'order-42', amount: 1999, currency: 'USD', response_code: '10000' },
    });
    expect(event._links.self.href).toContain(event.id);
  });

  it('keeps balances consistent with the event', () => {
    expect(checkoutComFixtures.paymentCaptured({ amount: 1999 }).data.balances).toMatchObject({
      total_captured: 1999,
      available_to_capture: 0,
      available_to_refund: 1999,
    });
    expect(checkoutComFixtures.paymentApproved({ amount: 1999 }).data.balances).toMatchObject({
      total_authorized: 1999,
      available_to_capture: 1999,
    });
    expect(checkoutComFixtures.paymentDeclined().data).toMatchObject({
      response_code: '20005',
      balances: { total_authorized: 0 },
    });
  });

  it('builds disputes about a payment, with its reference', () => {
    const event = checkoutComFixtures.disputeWon({ paymentId: 'pay_x', reference: 'order-7' });
    expect(event.data).toMatchObject({ payment_id: 'pay_x', payment_reference: 'order-7' });
    expect(event.data.id).toMatch(/^dsp_[a-z2-7]{26}$/);
  });
});
