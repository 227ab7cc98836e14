import { createHmac } from 'node:crypto';
import { cloudPaymentsDescriptor } from './cloudpayments.descriptor';
import { cloudPaymentsEndpoint } from './cloudpayments.provider';

describe('cloudPaymentsDescriptor', () => {
  // NOTE: retention and the CLI find a provider's descriptor by the kind its endpoints carry.
  it('describes the kind cloudPaymentsEndpoint() makes', () => {
    const endpoint = cloudPaymentsEndpoint({
      name: 'cloudpayments',
      apiSecret: 'cloudpayments-descriptor',
      notification: 'pay',
    });
    expect(endpoint.provider.kind).toBe(cloudPaymentsDescriptor.kind);
  });

  it('signs a JSON file for the CLI as form or JSON', () => {
    const json = { TransactionId: 7, InvoiceId: 'order-7', Amount: '1.00' };
    const input = (format?: string) => ({
      text: JSON.stringify(json),
      json,
      secret: 's3cret',
      options: { format },
      readFile: () => '',
    });
    const form = cloudPaymentsDescriptor.signing.sign(input());
    expect(form.body).toBe('TransactionId=7&InvoiceId=order-7&Amount=1.00');
    expect(form.headers['content-hmac']).toBe(
      createHmac('sha256', 's3cret').update(form.body).digest('base64'),
    );
    expect(cloudPaymentsDescriptor.signing.sign(input('json')).headers['content-type']).toBe(
      'application/json',
    );
    expect(() => cloudPaymentsDescriptor.signing.sign(input('xml'))).toThrow(
      /--format takes form or json/,
    );
  });
});
