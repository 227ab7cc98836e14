import { createHash, createHmac } from 'node:crypto';
import { braintreeSdk } from '../../spec-support/braintree-sdk';
import { braintreeFixtures } from './braintree.fixtures';
import { signBraintreeDelivery } from './braintree.signer';
import { braintreeEndpoint, braintreeProvider } from './braintree.provider';
import { SigningInput } from '../provider-descriptor.interface';
import { notificationsOf } from '../notifications';
import { storedEventIds } from '../../spec-support/stored-event-ids';

const PUBLIC_KEY = 'v4ndq314c2s5c28r';
const PRIVATE_KEY = '93b78bc88be90d93ac282e50ae569fdd';

const gateway = braintreeSdk(PUBLIC_KEY, PRIVATE_KEY);

function fieldsOf(body: string) {
  const fields = new URLSearchParams(body);
  return { signature: fields.get('bt_signature') ?? '', payload: fields.get('bt_payload') ?? '' };
}

function sign(payload: string) {
  return signBraintreeDelivery({ payload, publicKey: PUBLIC_KEY, privateKey: PRIVATE_KEY });
}

describe('signBraintreeDelivery', () => {
  it('signs as the official SDK does, and the SDK parses what it signs', async () => {
    const delivery = sign(
      braintreeFixtures.transactionSettled({
        orderId: 'order-42',
        amount: 1099,
        transactionId: 'cwn1ah7f',
      }),
    );
    const { signature, payload } = fieldsOf(delivery.body);
    expect(signature).toBe(gateway.sampleSignature(payload));
    const notification = await gateway.parse(signature, payload);
    expect(notification.kind).toBe('transaction_settled');
    expect(notification.transaction).toMatchObject({
      id: 'cwn1ah7f',
      orderId: 'order-42',
      amount: '10.99',
      currencyIsoCode: 'USD',
      status: 'settled',
    });
    expect(delivery).toMatchObject({
      provider: 'braintree',
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      eventId: expect.stringMatching(/^transaction_settled:cwn1ah7f:/),
    });
  });

  it('keys HMAC-SHA1 with the SHA-1 digest of the private key (node:crypto)', () => {
    const { signature, payload } = fieldsOf(sign(braintreeFixtures.check()).body);
    const key = createHash('sha1').update(PRIVATE_KEY).digest();
    expect(signature).toBe(
      `${PUBLIC_KEY}|${createHmac('sha1', key).update(payload).digest('hex')}`,
    );
  });

  it('writes bt_payload as Braintree does: base64 in lines of 60 and a final line break', () => {
    const { payload } = fieldsOf(sign(braintreeFixtures.disputeOpened()).body);
    const lines = payload.split('\n');
    expect(lines.pop()).toBe('');
    expect(lines.slice(0, -1).every((line) => line.length === 60)).toBe(true);
  });

  it('is refused by the SDK once the payload changes', async () => {
    const { signature, payload } = fieldsOf(sign(braintreeFixtures.transactionSettled()).body);
    const changed = `${payload.slice(0, 10)}${payload[10] === 'A' ? 'B' : 'A'}${payload.slice(11)}`;
    await expect(gateway.parse(signature, changed)).rejects.toThrow(/signature does not match/);
  });

  it('names the key a Braintree endpoint stores the notification under', async () => {
    const delivery = sign(braintreeFixtures.transactionSettled({ orderId: 'order-42' }));
    const endpoint = braintreeEndpoint({
      name: 'braintree',
      publicKey: PUBLIC_KEY,
      privateKey: PRIVATE_KEY,
    });
    expect(await storedEventIds(endpoint, delivery)).toEqual([delivery.eventId]);
    expect(delivery.eventId).toMatch(/^transaction_settled:/);
  });
});

describe('braintreeFixtures', () => {
  it.each(Object.keys(braintreeFixtures) as (keyof typeof braintreeFixtures)[])(
    'builds a %s notification the official SDK parses',
    async (name) => {
      const { signature, payload } = fieldsOf(sign(braintreeFixtures[name]()).body);
      const notification = await gateway.parse(signature, payload);
      expect(notification.kind).toMatch(/^[a-z_]+$/);
      expect(notification.timestamp).toBeDefined();
    },
  );

  it('carries a subscription charge and a dispute as the SDK reads them', async () => {
    const parse = async (xml: string) => {
      const { signature, payload } = fieldsOf(sign(xml).body);
      return gateway.parse(signature, payload);
    };
    const charged = await parse(
      braintreeFixtures.subscriptionChargedSuccessfully({
        subscriptionId: 'sub9',
        transactionId: 'tx9',
      }),
    );
    expect(charged.subscription).toMatchObject({ id: 'sub9' });
    expect(charged.subscription?.transactions?.[0]).toMatchObject({ id: 'tx9' });
    const dispute = await parse(
      braintreeFixtures.disputeLost({ disputeId: 'dp1', orderId: 'o-1' }),
    );
    expect(dispute.dispute).toMatchObject({
      id: 'dp1',
      status: 'lost',
      transaction: { orderId: 'o-1' },
    });
  });

  it('uses Braintree’s id shapes: 8-character transaction ids', () => {
    expect(braintreeFixtures.transactionSettled()).toMatch(/<id>[a-z0-9]{8}<\/id>/);
  });
});

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

describe("the CLI's braintree signing", () => {
  it('signs the JSON file as the XML notification the endpoint and the SDK accept', async () => {
    const delivery = braintreeProvider.descriptor.signing.sign(input(FILE));
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
    expect(() => braintreeProvider.descriptor.signing.sign(given)).toThrow(message);
  });
});
