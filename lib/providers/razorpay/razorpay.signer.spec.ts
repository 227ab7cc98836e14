import { createHmac } from 'node:crypto';
import { validateWebhookSignature } from 'razorpay/dist/utils/razorpay-utils';
import { razorpayFixtures } from './razorpay.fixtures';
import { signRazorpayDelivery } from './razorpay.signer';
import { razorpayEndpoint, razorpayProvider } from './razorpay.provider';
import { SigningInput } from '../provider-descriptor.interface';
import { storedEventIds } from '../../spec-support/stored-event-ids';

const SECRET = 'Shop-Webhook-Secret-2024';

describe('signRazorpayDelivery', () => {
  it('makes a header node:crypto computes and the official SDK accepts', () => {
    const delivery = signRazorpayDelivery({
      payload: razorpayFixtures.orderPaid({ orderId: 'order-42', amount: 1999 }),
      secret: SECRET,
    });
    const signature = delivery.headers['x-razorpay-signature'];
    expect(signature).toBe(createHmac('sha256', SECRET).update(delivery.body).digest('hex'));
    expect(validateWebhookSignature(delivery.body, signature, SECRET)).toBe(true);
    expect(validateWebhookSignature(`${delivery.body} `, signature, SECRET)).toBe(false);
    expect(validateWebhookSignature(delivery.body, signature, `${SECRET}x`)).toBe(false);
    expect(delivery).toMatchObject({
      provider: 'razorpay',
      method: 'POST',
      headers: { 'content-type': 'application/json' },
    });
    expect(delivery.headers).not.toHaveProperty('x-razorpay-event-id');
  });

  it('signs a text payload byte for byte and sends x-razorpay-event-id when given', () => {
    const body = '{"event":"payment.captured","note":"मुंबई"}';
    const delivery = signRazorpayDelivery({ payload: body, secret: SECRET, eventId: 'KlmZ1VJk' });
    expect(delivery.body).toBe(body);
    expect(validateWebhookSignature(body, delivery.headers['x-razorpay-signature'], SECRET)).toBe(
      true,
    );
    expect(delivery.headers['x-razorpay-event-id']).toBe('KlmZ1VJk');
  });

  it('names the key a Razorpay endpoint makes from the signed event, not x-razorpay-event-id', async () => {
    const event = razorpayFixtures.paymentCaptured({ paymentId: 'pay_SignerKey000001' });
    const delivery = signRazorpayDelivery({ payload: event, secret: SECRET, eventId: 'KlmZ1VJk' });
    const endpoint = razorpayEndpoint({ name: 'razorpay', secret: SECRET });
    expect(await storedEventIds(endpoint, delivery)).toEqual([delivery.eventId]);
    expect(delivery.eventId).toBe(`payment.captured:pay_SignerKey000001:${event.created_at}`);
  });
});

describe('razorpayFixtures', () => {
  it('uses Razorpay’s id formats and keeps amounts in the smallest unit', () => {
    const event = razorpayFixtures.orderPaid({ orderId: 'order-42', amount: 1999 });
    const payment = event.payload.payment.entity;
    const order = event.payload.order.entity;
    expect(event).toMatchObject({
      entity: 'event',
      event: 'order.paid',
      contains: ['payment', 'order'],
    });
    expect(event.account_id).toMatch(/^acc_[A-Za-z0-9]{14}$/);
    expect(payment.id).toMatch(/^pay_[A-Za-z0-9]{14}$/);
    expect(order).toMatchObject({ id: payment.order_id, receipt: 'order-42', status: 'paid' });
    expect(payment).toMatchObject({ amount: 1999, currency: 'INR', status: 'captured' });
    expect(Number.isInteger(event.created_at)).toBe(true);
  });

  it('builds refunds under their payment, full or partial', () => {
    const full = razorpayFixtures.refundProcessed({ amount: 1999 });
    expect(full.payload.refund.entity).toMatchObject({ amount: 1999, status: 'processed' });
    expect(full.payload.refund.entity.id).toMatch(/^rfnd_[A-Za-z0-9]{14}$/);
    expect(full.payload.payment.entity).toMatchObject({
      status: 'refunded',
      refund_status: 'full',
    });
    const partial = razorpayFixtures.refundProcessed({ amount: 1999, refundAmount: 500 });
    expect(partial.payload.payment.entity).toMatchObject({
      status: 'captured',
      amount_refunded: 500,
      refund_status: 'partial',
    });
  });

  it('builds dispute events with the dispute status of their phase', () => {
    expect(razorpayFixtures.dispute('created').payload.dispute.entity.status).toBe('open');
    expect(razorpayFixtures.dispute('lost').payload.dispute.entity).toMatchObject({
      status: 'lost',
      amount_deducted: 49900,
    });
  });
});

describe('razorpayProvider CLI signing', () => {
  function input(overrides: Partial<SigningInput>): SigningInput {
    return {
      text: '{"event":"payment.captured"}',
      json: { event: 'payment.captured' },
      options: {},
      readFile: () => '',
      ...overrides,
    };
  }

  it('signs the file as it is for the CLI, the way the SDK checks it', () => {
    const delivery = razorpayProvider.descriptor.signing.sign(
      input({ secret: 'cli-secret', options: { 'event-id': 'KlmZ1VJk' } }),
    );
    expect(delivery.body).toBe('{"event":"payment.captured"}');
    expect(
      validateWebhookSignature(
        delivery.body,
        delivery.headers['x-razorpay-signature'],
        'cli-secret',
      ),
    ).toBe(true);
    expect(delivery.headers['x-razorpay-event-id']).toBe('KlmZ1VJk');
  });

  it('needs --secret', () => {
    expect(() => razorpayProvider.descriptor.signing.sign(input({}))).toThrow(
      '--provider razorpay needs --secret',
    );
  });
});
