import { braintreeSdk } from '../../spec-support/braintree-sdk';
import { SigningInput } from '../provider-descriptor.interface';
import { braintreeDescriptor } from './braintree.descriptor';
import { braintreeEndpoint } from './braintree.provider';
import { notificationsOf } from '../notifications';

const PUBLIC_KEY = 'v4ndq314c2s5c28r';
const PRIVATE_KEY = '93b78bc88be90d93ac282e50ae569fdd';

function input(json: unknown, options: Record<string, string> = { 'public-key': PUBLIC_KEY }) {
  return {
    text: JSON.stringify(json),
    json,
    secret: PRIVATE_KEY,
    options,
    readFile: () => '',
  } satisfies SigningInput;
}

const FILE = {
  kind: 'transaction_settled',
  timestamp: '2024-05-12T18:14:14Z',
  subject: {
    transaction: {
      id: 'cwn1ah7f',
      status: 'settled',
      type: 'sale',
      'currency-iso-code': 'USD',
      amount: '19.99',
      'order-id': 'order-42',
    },
  },
};

describe('braintreeDescriptor', () => {
  // NOTE: retention and the CLI find a provider's descriptor by the kind its endpoints carry.
  it('describes the kind braintreeEndpoint() makes by default', () => {
    const endpoint = braintreeEndpoint({
      name: 'braintree',
      publicKey: PUBLIC_KEY,
      privateKey: PRIVATE_KEY,
    });
    expect(endpoint.provider.kind).toBe(braintreeDescriptor.kind);
  });

  it('signs the JSON file as the XML notification the endpoint and the SDK accept', async () => {
    const delivery = braintreeDescriptor.signing.sign(input(FILE));
    const provider = braintreeEndpoint({
      name: 'braintree',
      publicKey: PUBLIC_KEY,
      privateKey: PRIVATE_KEY,
    }).provider;
    const request = { rawBody: Buffer.from(delivery.body), headers: {}, receivedAt: new Date() };
    expect(() => provider.verify(request)).not.toThrow();
    expect(notificationsOf(provider.normalize(request))[0]).toMatchObject({
      eventId: 'transaction_settled:cwn1ah7f:2024-05-12T18:14:14Z',
      type: 'payment.succeeded',
      merchantRef: 'order-42',
      amount: 1999,
    });
    const fields = new URLSearchParams(delivery.body);
    const gateway = braintreeSdk(PUBLIC_KEY, PRIVATE_KEY);
    const parsed = await gateway.parse(
      fields.get('bt_signature') as string,
      fields.get('bt_payload') as string,
    );
    expect(parsed.transaction).toMatchObject({ id: 'cwn1ah7f', orderId: 'order-42' });
  });

  it.each([
    ['no --public-key', input(FILE, {}), /needs --public-key/],
    ['no kind', input({ subject: {} }), /"kind" a string/],
    ['a subject that is no object', input({ kind: 'check', subject: 'x' }), /must be an object/],
    ['an array file', input([]), /takes a JSON object/],
  ])('refuses %s with a usage error', (_label, given, message) => {
    expect(() => braintreeDescriptor.signing.sign(given)).toThrow(message);
  });
});
