import { validateWebhookSignature } from 'razorpay/dist/utils/razorpay-utils';
import { SigningInput } from '../provider-descriptor.interface';
import { razorpayDescriptor } from './razorpay.descriptor';
import { razorpayEndpoint } from './razorpay.provider';

function input(overrides: Partial<SigningInput>): SigningInput {
  return {
    text: '{"event":"payment.captured"}',
    json: { event: 'payment.captured' },
    options: {},
    readFile: () => '',
    ...overrides,
  };
}

describe('razorpayDescriptor', () => {
  // NOTE: retention and the CLI find a provider's descriptor by the kind its endpoints carry.
  it('describes the kind razorpayEndpoint() makes by default', () => {
    const endpoint = razorpayEndpoint({ name: 'razorpay', secret: 'razorpay-descriptor' });
    expect(endpoint.provider.kind).toBe(razorpayDescriptor.kind);
  });

  it('signs the file as it is for the CLI, the way the SDK checks it', () => {
    const delivery = razorpayDescriptor.signing.sign(
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
    expect(() => razorpayDescriptor.signing.sign(input({}))).toThrow(
      '--provider razorpay needs --secret',
    );
  });
});
