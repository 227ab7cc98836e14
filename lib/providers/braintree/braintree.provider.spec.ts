import { WebhookConfigurationError } from '../../core/webhook-errors';
import { rejection } from '../../spec-support/rejection';
import { braintreeSdk } from '../../spec-support/braintree-sdk';
import { notificationsOf } from '../notifications';
import { InboundWebhook, NormalizedNotification } from '../webhook-provider.interface';
import { braintreeFixtures } from './braintree.fixtures';
import { BraintreeEndpointOptions, braintreeEndpoint } from './braintree.provider';
import { signBraintreeDelivery } from './braintree.signer';

// The shape of Braintree's keys (the GraphQL guide's example pair).
const PUBLIC_KEY = 'v4ndq314c2s5c28r';
const PRIVATE_KEY = '93b78bc88be90d93ac282e50ae569fdd';
const OTHER_PUBLIC_KEY = 'k2r8yw6m3q9ztd4p';
const OTHER_PRIVATE_KEY = '4f1e9c2b7a6d5e8f0a1b2c3d4e5f6a7b';

function gatewayFor(publicKey = PUBLIC_KEY, privateKey = PRIVATE_KEY) {
  return braintreeSdk(publicKey, privateKey);
}

function delivery(fields: Record<string, string>): InboundWebhook {
  return {
    rawBody: Buffer.from(new URLSearchParams(fields).toString(), 'utf8'),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    receivedAt: new Date(),
  };
}

/** A genuine notification from the official SDK's signer. */
function sample(kind: string, id = 'txn_42', gateway = gatewayFor()): InboundWebhook {
  const { bt_signature, bt_payload } = gateway.sampleNotification(kind, id);
  return delivery({ bt_signature, bt_payload });
}

/** Our fixture's XML, signed by the official SDK. */
function signedXml(xml: string, gateway = gatewayFor()): InboundWebhook {
  const payload = `${Buffer.from(xml, 'utf8').toString('base64')}\n`;
  return delivery({
    bt_signature: gateway.sampleSignature(payload),
    bt_payload: payload,
  });
}

function fieldsOf(request: InboundWebhook): Record<string, string> {
  return Object.fromEntries(new URLSearchParams(request.rawBody.toString('utf8')));
}

function provider(options: Partial<BraintreeEndpointOptions> = {}) {
  return braintreeEndpoint({
    name: 'braintree',
    publicKey: PUBLIC_KEY,
    privateKey: PRIVATE_KEY,
    ...options,
  }).provider;
}

function normalize(request: InboundWebhook): NormalizedNotification {
  return notificationsOf(provider().normalize(request))[0];
}

describe('braintreeEndpoint', () => {
  describe('verify', () => {
    it.each(gatewayFor().kinds)('accepts the official SDK’s sample %s notification', (kind) => {
      expect(() => provider().verify(sample(kind))).not.toThrow();
    });

    it('accepts what signBraintreeDelivery makes, body as sent', () => {
      const sent = signBraintreeDelivery({
        payload: braintreeFixtures.transactionSettled(),
        publicKey: PUBLIC_KEY,
        privateKey: PRIVATE_KEY,
      });
      const request = { ...delivery({}), rawBody: Buffer.from(sent.body, 'utf8') };
      expect(() => provider().verify(request)).not.toThrow();
    });

    it('accepts a payload whose trailing line break was lost, as the SDKs do', () => {
      const fields = fieldsOf(sample('transaction_settled'));
      expect(fields.bt_payload.endsWith('\n')).toBe(true);
      const trimmed = { ...fields, bt_payload: fields.bt_payload.slice(0, -1) };
      expect(() => provider().verify(delivery(trimmed))).not.toThrow();
    });

    it('picks its own public key among the pairs of every API key of the account', () => {
      const ours = fieldsOf(sample('transaction_settled'));
      const theirs = gatewayFor(OTHER_PUBLIC_KEY, OTHER_PRIVATE_KEY).sampleSignature(
        ours.bt_payload,
      );
      const both = { ...ours, bt_signature: `${theirs}&${ours.bt_signature}` };
      expect(() => provider().verify(delivery(both))).not.toThrow();
      expect(() =>
        provider({ publicKey: OTHER_PUBLIC_KEY, privateKey: OTHER_PRIVATE_KEY }).verify(
          delivery(both),
        ),
      ).not.toThrow();
    });

    it('accepts either API key while one is replaced (additionalKeys)', () => {
      const rotating = provider({
        additionalKeys: [{ publicKey: OTHER_PUBLIC_KEY, privateKey: OTHER_PRIVATE_KEY }],
      });
      const other = gatewayFor(OTHER_PUBLIC_KEY, OTHER_PRIVATE_KEY);
      expect(() => rotating.verify(sample('dispute_opened'))).not.toThrow();
      expect(() => rotating.verify(sample('dispute_opened', 'd1', other))).not.toThrow();
    });

    it('rejects a payload changed after signing', () => {
      const fields = fieldsOf(signedXml(braintreeFixtures.transactionSettled({ amount: 1099 })));
      const xml = Buffer.from(fields.bt_payload, 'base64').toString('utf8');
      const changed = Buffer.from(xml.replace('10.99', '99.99')).toString('base64');
      expect(
        rejection(() => provider().verify(delivery({ ...fields, bt_payload: `${changed}\n` }))),
      ).toMatchObject({ name: 'WebhookVerificationError', reason: 'bad_signature' });
    });

    it('rejects a signature made with another private key, without echoing key or signature', () => {
      const forged = sample('transaction_settled', 'x', gatewayFor(PUBLIC_KEY, OTHER_PRIVATE_KEY));
      const error = rejection(() => provider().verify(forged));
      expect(error).toMatchObject({ reason: 'bad_signature' });
      expect(error.message).toMatch(/does not match/);
      expect(error.message).not.toContain(PRIVATE_KEY);
      expect(error.message).not.toContain(fieldsOf(forged).bt_signature.split('|')[1]);
    });

    it('rejects a notification signed for another public key only', () => {
      const other = sample('transaction_settled', 'x', gatewayFor(OTHER_PUBLIC_KEY, PRIVATE_KEY));
      expect(rejection(() => provider().verify(other))).toMatchObject({
        reason: 'bad_signature',
        message: expect.stringMatching(/no signature for the configured publicKey/),
      });
    });

    it.each([
      ['absent', {}, 'missing_signature'],
      ['empty', { bt_signature: '' }, 'missing_signature'],
    ])('rejects a delivery whose bt_signature is %s', (_label, change, reason) => {
      const { bt_payload } = fieldsOf(sample('check'));
      expect(rejection(() => provider().verify(delivery({ bt_payload, ...change })))).toMatchObject(
        { reason, message: 'Braintree notification has no bt_signature' },
      );
    });

    it('rejects a delivery without bt_payload', () => {
      const { bt_signature } = fieldsOf(sample('check'));
      expect(rejection(() => provider().verify(delivery({ bt_signature })))).toMatchObject({
        reason: 'bad_signature',
        message: expect.stringMatching(/no bt_payload/),
      });
    });

    it.each([
      ['no "|"', PUBLIC_KEY],
      ['a signature that is not hex', `${PUBLIC_KEY}|${'z'.repeat(40)}`],
      ['a truncated signature', `${PUBLIC_KEY}|${'a'.repeat(39)}`],
    ])('rejects a bt_signature with %s as malformed', (_label, bt_signature) => {
      const { bt_payload } = fieldsOf(sample('check'));
      expect(
        rejection(() => provider().verify(delivery({ bt_signature, bt_payload }))),
      ).toMatchObject({ reason: 'bad_signature', message: expect.stringMatching(/^Malformed/) });
    });
  });

  describe('configuration', () => {
    function configError(options: Partial<BraintreeEndpointOptions>): string {
      const error = rejection(() =>
        braintreeEndpoint({ name: 'braintree', ...options } as BraintreeEndpointOptions),
      );
      expect(error.name).toBe(WebhookConfigurationError.name);
      return error.message;
    }

    it('builds the endpoint record with an empty 200 as the acknowledgement', () => {
      const endpoint = braintreeEndpoint({
        name: 'braintree',
        publicKey: PUBLIC_KEY,
        privateKey: PRIVATE_KEY,
      });
      expect(endpoint).toMatchObject({
        acknowledgement: { status: 200, body: '', contentType: 'text/plain; charset=utf-8' },
        statusClient: undefined,
      });
      expect(endpoint.provider.kind).toBe('braintree');
      expect(endpoint.provider.kind).toBe(braintreeEndpoint.kind);
    });

    it('requires both keys and says where to find them', () => {
      expect(configError({ privateKey: PRIVATE_KEY })).toMatch(
        /"braintree" \(braintree\) has no usable publicKey: copy it from the Braintree Control Panel/,
      );
      expect(configError({ publicKey: PUBLIC_KEY })).toMatch(/no usable privateKey/);
      expect(
        configError({
          publicKey: PUBLIC_KEY,
          privateKey: PRIVATE_KEY,
          additionalKeys: [{ publicKey: OTHER_PUBLIC_KEY } as never],
        }),
      ).toMatch(/no usable additionalKeys\[0\]\.privateKey/);
    });

    it('refuses a key with whitespace without quoting it', () => {
      const message = configError({ publicKey: PUBLIC_KEY, privateKey: `${PRIVATE_KEY}\n` });
      expect(message).toMatch(/privateKey contains whitespace/);
      expect(message).not.toContain(PRIVATE_KEY);
    });

    it('builds a status client from api', () => {
      const endpoint = braintreeEndpoint({
        name: 'braintree',
        publicKey: PUBLIC_KEY,
        privateKey: PRIVATE_KEY,
        api: { publicKey: PUBLIC_KEY, privateKey: PRIVATE_KEY, environment: 'sandbox' },
        verifyWithProvider: true,
      });
      expect(endpoint).toMatchObject({
        verifyWithProvider: true,
        statusClient: { kind: 'braintree' },
      });
    });
  });

  describe('normalize', () => {
    it.each([
      ['transaction_settled', braintreeFixtures.transactionSettled(), 'payment.succeeded'],
      [
        'transaction_settled',
        braintreeFixtures.transactionSettled({ type: 'credit' }),
        'refund.succeeded',
      ],
      [
        'transaction_settlement_declined',
        braintreeFixtures.transactionSettlementDeclined(),
        'payment.failed',
      ],
      [
        'transaction_settlement_declined',
        braintreeFixtures.transactionSettlementDeclined({ type: 'credit' }),
        'refund.failed',
      ],
      [
        'subscription_charged_successfully',
        braintreeFixtures.subscriptionChargedSuccessfully(),
        'payment.succeeded',
      ],
      [
        'subscription_charged_unsuccessfully',
        braintreeFixtures.subscriptionChargedUnsuccessfully(),
        'payment.failed',
      ],
      ['refund_failed', braintreeFixtures.refundFailed(), 'refund.failed'],
      ['dispute_opened', braintreeFixtures.disputeOpened(), 'dispute.opened'],
      ['dispute_won', braintreeFixtures.disputeWon(), 'dispute.closed'],
      ['dispute_lost', braintreeFixtures.disputeLost(), 'dispute.closed'],
      ['check', braintreeFixtures.check(), 'braintree:check'],
    ])('maps %s to its type', (nativeType, xml, type) => {
      expect(normalize(signedXml(xml))).toMatchObject({ nativeType, type });
    });

    it.each([
      ['dispute_accepted', 'dispute.closed'],
      ['dispute_auto_accepted', 'dispute.closed'],
      ['dispute_expired', 'dispute.closed'],
      ['dispute_under_review', 'braintree:dispute_under_review'],
      ['local_payment_funded', 'payment.succeeded'],
      ['local_payment_expired', 'payment.canceled'],
      ['local_payment_completed', 'braintree:local_payment_completed'],
      ['transaction_disbursed', 'braintree:transaction_disbursed'],
      ['subscription_went_past_due', 'braintree:subscription_went_past_due'],
      ['disbursement', 'braintree:disbursement'],
    ])('maps the SDK’s sample %s to %s', (kind, type) => {
      expect(normalize(sample(kind))).toMatchObject({ nativeType: kind, type });
    });

    it('reads a settled sale: id, order-id, amount in minor units, status, signed timestamp', () => {
      const timestamp = new Date('2024-05-12T18:14:14Z');
      const result = normalize(
        signedXml(
          braintreeFixtures.transactionSettled({
            transactionId: 'cwn1ah7f',
            orderId: 'order-42',
            amount: 1999,
            timestamp,
          }),
        ),
      );
      expect(result).toMatchObject({
        eventId: 'transaction_settled:cwn1ah7f:2024-05-12T18:14:14Z',
        type: 'payment.succeeded',
        paymentRef: 'cwn1ah7f',
        merchantRef: 'order-42',
        amount: 1999,
        currency: 'USD',
        status: 'settled',
        occurredAt: timestamp,
        occurredAtSigned: true,
      });
      expect(result.payload).toMatchObject({
        kind: 'transaction_settled',
        subject: { transaction: { id: 'cwn1ah7f', 'order-id': 'order-42', amount: '19.99' } },
      });
    });

    it.each([
      ['USD', 1999, '19.99'],
      ['JPY', 1999, '1999'],
      ['KWD', 19990, '19.990'],
    ])('converts a %s amount written %s', (currency, amount, written) => {
      const xml = braintreeFixtures.transactionSettled({ currency, amount });
      expect(xml).toContain(`<amount>${written}</amount>`);
      expect(normalize(signedXml(xml))).toMatchObject({ amount, currency });
    });

    it('reads the SDK’s sample amount "100" as 10000 cents of USD', () => {
      expect(normalize(sample('transaction_settled'))).toMatchObject({
        amount: 10000,
        currency: 'USD',
      });
    });

    it('reads a refund: the refunded sale is the payment, the refund names the key', () => {
      const refund = (id: string) =>
        normalize(
          signedXml(
            braintreeFixtures.transactionSettled({
              type: 'credit',
              transactionId: id,
              refundedTransactionId: 'cwn1ah7f',
              amount: 500,
              timestamp: new Date('2024-05-13T09:00:00Z'),
            }),
          ),
        );
      const [first, second] = [refund('rf000001'), refund('rf000002')];
      expect(first).toMatchObject({
        type: 'refund.succeeded',
        paymentRef: 'cwn1ah7f',
        amount: 500,
      });
      // NOTE: two partial refunds of one sale, reported in the same second.
      expect(first.eventId).not.toBe(second.eventId);
    });

    it('never merges two outcomes of one transaction or two charges of one subscription', () => {
      const timestamp = new Date('2024-05-12T18:14:14Z');
      const settled = { transactionId: 'cwn1ah7f', timestamp };
      const keys = [
        braintreeFixtures.transactionSettled(settled),
        braintreeFixtures.transactionSettlementDeclined(settled),
        braintreeFixtures.subscriptionChargedSuccessfully({
          subscriptionId: 's1',
          transactionId: 'a1',
          timestamp,
        }),
        braintreeFixtures.subscriptionChargedSuccessfully({
          subscriptionId: 's1',
          transactionId: 'a2',
          timestamp,
        }),
        braintreeFixtures.transactionSettled({
          ...settled,
          timestamp: new Date('2024-05-12T18:14:15Z'),
        }),
      ].map((xml) => normalize(signedXml(xml)).eventId);
      expect(new Set(keys).size).toBe(keys.length);
      expect(keys[2]).toBe(`subscription_charged_successfully:s1/a1:2024-05-12T18:14:14Z`);
    });

    it('gives every delivery of one notification the same key', () => {
      const request = sample('dispute_opened', 'dp_1');
      expect(normalize(request).eventId).toBe(normalize({ ...request }).eventId);
      const again = normalize(request);
      expect(again.eventId).toMatch(/^dispute_opened:dp_1:\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    });

    it('reads a dispute: the disputed amount, its transaction and order, its status', () => {
      const result = normalize(
        signedXml(
          braintreeFixtures.disputeOpened({
            disputeId: 'dp1',
            transactionId: 'cwn1ah7f',
            orderId: 'order-9',
            amount: 2500,
            currency: 'EUR',
          }),
        ),
      );
      expect(result).toMatchObject({
        eventId: expect.stringMatching(/^dispute_opened:dp1:/),
        paymentRef: 'cwn1ah7f',
        merchantRef: 'order-9',
        amount: 2500,
        currency: 'EUR',
        status: 'open',
      });
    });

    it('reads a subscription charge from its newest transaction', () => {
      const result = normalize(
        signedXml(
          braintreeFixtures.subscriptionChargedSuccessfully({
            subscriptionId: 'sub9',
            transactionId: 'tx9',
            amount: 4999,
          }),
        ),
      );
      expect(result).toMatchObject({
        paymentRef: 'tx9',
        amount: 4999,
        status: 'submitted_for_settlement',
      });
    });

    it.each([
      ['not base64', { bt_payload: 'PG5vdGlm*' }, /not base64/],
      ['not XML', { bt_payload: Buffer.from('{"kind":"x"}').toString('base64') }, /not valid XML/],
      [
        'another root',
        { bt_payload: Buffer.from('<error><message>x</message></error>').toString('base64') },
        /root element/,
      ],
      [
        'without a kind',
        {
          bt_payload: Buffer.from(
            '<notification><timestamp>2024-05-12T18:14:14Z</timestamp><subject/></notification>',
          ).toString('base64'),
        },
        /needs a kind, a timestamp and a subject/,
      ],
      [
        'with a timestamp that is no date',
        {
          bt_payload: Buffer.from(
            '<notification><timestamp>soon</timestamp><kind>check</kind><subject/></notification>',
          ).toString('base64'),
        },
        /not a date/,
      ],
    ])('throws WebhookPayloadError for a payload %s', (_label, fields, message) => {
      expect(rejection(() => provider().normalize(delivery(fields)))).toMatchObject({
        name: 'WebhookPayloadError',
        message: expect.stringMatching(message),
      });
    });
  });
});
