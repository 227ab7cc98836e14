import { createHmac } from 'node:crypto';
import { mollieFixtures } from './mollie.fixtures';
import { mollieEndpoint, mollieProvider } from './mollie.provider';
import { signMollieDelivery } from './mollie.signer';
import { storedEventIds } from '../../spec-support/stored-event-ids';

const SECRET = 'whsec_mollie_signer_spec_Lw8Tq3Vx';

// NOTE: Mollie's PHP SDK signs with hash_hmac('sha256', $payload, $secret) and its test checks a
// header with and without the sha256= prefix; this is that computation, in node:crypto.
const PHP_SDK_CASE = {
  payload: '{"id":"tr_12345","event_type":"payment-link.paid"}',
  secret: 'test_webhook_secret',
};

describe('signMollieDelivery', () => {
  it('writes X-Mollie-Signature as sha256=<hex HMAC-SHA256 of the body>', () => {
    const sent = signMollieDelivery({
      payload: PHP_SDK_CASE.payload,
      signingSecret: PHP_SDK_CASE.secret,
    });
    const expected = createHmac('sha256', PHP_SDK_CASE.secret)
      .update(PHP_SDK_CASE.payload)
      .digest('hex');
    expect(sent).toMatchObject({
      provider: 'mollie',
      method: 'POST',
      body: PHP_SDK_CASE.payload,
      headers: { 'content-type': 'application/json', 'x-mollie-signature': `sha256=${expected}` },
    });
  });

  it('signs a fixture the endpoint accepts, and names the event id it stores', async () => {
    const payload = mollieFixtures.paymentEvent('payment.paid', { orderId: 'order-42' });
    const sent = signMollieDelivery({ payload, signingSecret: SECRET });
    const endpoint = mollieEndpoint({ name: 'mollie', signingSecret: SECRET });
    expect(await storedEventIds(endpoint, sent)).toEqual([payload.id]);
    expect(sent.eventId).toBe(payload.id);
  });

  it('signs with each secret of a rotation, one signature per secret', async () => {
    const sent = signMollieDelivery({
      payload: '{"id":"event_1"}',
      signingSecret: ['old', SECRET],
    });
    expect(sent.headers['x-mollie-signature']).toMatch(
      /^sha256=[0-9a-f]{64}, sha256=[0-9a-f]{64}$/,
    );
    const { provider } = mollieEndpoint({ name: 'mollie', signingSecret: 'old' });
    const request = {
      rawBody: Buffer.from(sent.body),
      headers: sent.headers,
      receivedAt: new Date(),
    };
    await expect(provider.verify(request)).resolves.toBeUndefined();
  });
});

describe('mollieProvider.descriptor', () => {
  it('describes the kind mollieEndpoint() makes', () => {
    const endpoint = mollieEndpoint({ name: 'mollie', signingSecret: SECRET });
    expect(endpoint.provider.kind).toBe(mollieProvider.kind);
  });

  it('signs a next-gen event for the CLI with --secret', () => {
    const text = JSON.stringify(mollieFixtures.paymentEvent('payment.paid'));
    const sent = mollieProvider.descriptor.signing.sign({
      text,
      json: JSON.parse(text),
      secret: SECRET,
      options: {},
      readFile: () => '',
    });
    expect(sent.headers['x-mollie-signature']).toBe(
      `sha256=${createHmac('sha256', SECRET).update(text).digest('hex')}`,
    );
    expect(() =>
      mollieProvider.descriptor.signing.sign({ text, json: {}, options: {}, readFile: () => '' }),
    ).toThrow(/--provider mollie needs --secret/);
  });
});
