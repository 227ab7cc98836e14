import { validateWebhookSignature } from 'razorpay/dist/utils/razorpay-utils';
import { kit } from './razorpay.kit';

// NOTE: the kit signs with node:crypto; the official SDK must take what it sends.
describe('the Razorpay provider kit', () => {
  it('signs paid() as the official SDK checks it', () => {
    const { delivery } = kit.paid('order-kit-1');
    const secret = 'razorpay-provider-kit-secret';
    expect(
      validateWebhookSignature(delivery.body, delivery.headers['x-razorpay-signature'], secret),
    ).toBe(true);
  });
});
