import { createHmac, generateKeyPairSync } from 'node:crypto';
import { WebhookConfigurationError } from '../../core/webhook-errors';
import { notificationsOf } from '../notifications';
import { SberEndpointOptions, sberEndpoint, sberProvider } from './sber.provider';
import { InboundWebhook, NormalizedNotification } from '../webhook-provider.interface';
import { rejection } from '../../spec-support/rejection';

// NOTE: Sber publishes no SDK for Node. These are the gateway docs' vectors (providers.md §5),
// the symmetric one recomputed below with node:crypto.
const DOCS_TOKEN = 'ooc7slpvc61k7sf7ma7p4hrefr';
const DOCS_STRING =
  'mdOrder;06cf5599-3f17-7c86-bdbc-bd7d00a8b38b;operation;approved;orderNumber;2003;status;1;';
const DOCS_CHECKSUM = 'EAF2FB72CAB99FD5067F4BA493DD84F4D79C1589FDE8ED29622F0F07215AA972';
// NOTE: parameter order is arbitrary in callbacks; checksum sits in the middle on purpose.
const DOCS_QUERY =
  'mdOrder=06cf5599-3f17-7c86-bdbc-bd7d00a8b38b&orderNumber=2003' +
  `&checksum=${DOCS_CHECKSUM}&operation=approved&status=1`;

// Asymmetric vector 1: the RBS test certificate (2017, 1024-bit) as the bare base64 the docs give,
// with sign_alias "SHA-256 with RSA" although the signature verifies only with SHA-512.
const CERT_BASE64 =
  'MIICcTCCAdqgAwIBAgIGAWAnZt3aMA0GCSqGSIb3DQEBCwUAMHwxIDAeBgkqhkiG9w0BCQEWEWt6' +
  'bnRlc3RAeWFuZGV4LnJ1MQswCQYDVQQGEwJSVTESMBAGA1UECBMJVGF0YXJzdGFuMQ4wDAYDVQQH' +
  'EwVLYXphbjEMMAoGA1UEChMDUkJTMQswCQYDVQQLEwJRQTEMMAoGA1UEAxMDUkJTMB4XDTE3MTIw' +
  'NTE2MDEyMFoXDTE4MTIwNTE2MDExOVowfDEgMB4GCSqGSIb3DQEJARYRa3pudGVzdEB5YW5kZXgu' +
  'cnUxCzAJBgNVBAYTAlJVMRIwEAYDVQQIEwlUYXRhcnN0YW4xDjAMBgNVBAcTBUthemFuMQwwCgYD' +
  'VQQKEwNSQlMxCzAJBgNVBAsTAlFBMQwwCgYDVQQDEwNSQlMwgZ8wDQYJKoZIhvcNAQEBBQADgY0A' +
  'MIGJAoGBAJNgxgtWRFe8zhF6FE1C8s1t/dnnC8qzNN+uuUOQ3hBx1CHKQTEtZFTiCbNLMNkgWtJ/' +
  'CRBBiFXQbyza0/Ks7FRgSD52qFYUV05zRjLLoEyzG6LAfihJwTEPddNxBNvCxqdBeVdDThG81zC0' +
  'DiAhMeSwvcPCtejaDDSEYcQBLLhDAgMBAAEwDQYJKoZIhvcNAQELBQADgYEAfRP54xwuGLW/Cg08' +
  'ar6YqhdFNGq5TgXMBvQGQfRvL7W6oH67PcvzgvzN8XCL56dcpB7S8ek6NGYfPQ4K2zhgxhxpFEDH' +
  'PcgU4vswnhhWbGVMoVgmTA0hEkwq86CA5ZXJkJm6f3E/J6lYoPQaKatKF24706T6iH2htG4Bkjre' +
  'gUA=';
const CERT_PEM = `-----BEGIN CERTIFICATE-----\n${CERT_BASE64.match(/.{1,64}/g)!.join('\n')}\n-----END CERTIFICATE-----\n`;
const CERT_CHECKSUM =
  '163BD9FAE437B5DCDAAC4EB5ECEE5E533DAC7BD2C8947B0719F7A8BD17C101EBDBEACDB295C10BF041E903AF3FF1E6' +
  '101FF7DB9BD024C6272912D86382090D5A7614E174DC034EBBB541435C80869CEED1F1E1710B71D6EE7F52AE354505' +
  'A83A1E279FBA02572DC4661C1D75ABF5A7130B70306CAFA69DABC2F6200A698198F8';
const CERT_QUERY =
  `amount=35000099&sign_alias=SHA-256+with+RSA&checksum=${CERT_CHECKSUM}` +
  '&mdOrder=12b59da8-f68f-7c8d-12b5-9da8000826ea&operation=deposited&status=1';

// Asymmetric vector 2: a 2048-bit PEM public key from the gateway docs, same parameters.
const PUBLIC_KEY_PEM = `-----BEGIN PUBLIC KEY-----
MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAwtuGKbQ4WmfdV1gjWWys
5jyHKTWXnxX3zVa5/Cx5aKwJpOsjrXnHh6l8bOPQ6Sgj3iSeKJ9plZ3i7rPjkfmw
qUOJ1eLU5NvGkVjOgyi11aUKgEKwS5Iq5HZvXmPLzu+U22EUCTQwjBqnE/Wf0hnI
wYABDgc0fJeJJAHYHMBcJXTuxF8DmDf4DpbLrQ2bpGaCPKcX+04POS4zVLVCHF6N
6gYtM7U2QXYcTMTGsAvmIqSj1vddGwvNGeeUVoPbo6enMBbvZgjN5p6j3ItTziMb
Vba3m/u7bU1dOG2/79UpGAGR10qEFHiOqS6WpO7CuIR2tL9EznXRc7D9JZKwGfoY
/QIDAQAB
-----END PUBLIC KEY-----
`;
const PEM_CHECKSUM =
  '9524FD765FB1BABFB1F42E4BC6EF5A4B07BAA3F9C809098ACBB462618A9327539F975FEDB4CF6EC1556FF88BA74774' +
  '342AF4F5B51BA63903BE9647C670EBD962467282955BD1D57B16935C956864526810870CD32967845EBABE1C6565C0' +
  '3F94FF66907CEDB54669A1C74AC1AD6E39B67FA7EF6D305A007A474F03B80FD6C965656BEAA74E09BB1189F4B32E62' +
  '2C903DC52843C454B7ACF76D6F76324C27767DE2FF6E7217716C19C530CA7551DB58268CC815638C30F3BCA3270E1F' +
  'D44F63C14974B108E65C20638ECE2F2D752F32742FFC5077415102706FA5235D310D4948A780B08D1B75C8983F22F2' +
  '11DFCBF14435F262ADDA6A97BFEB6D332C3D51010B';
const PEM_QUERY =
  'mdOrder=12b59da8-f68f-7c8d-12b5-9da8000826ea&operation=deposited&status=1' +
  `&amount=35000099&checksum=${PEM_CHECKSUM}`;

const TOKEN = 'sber_callback_token';
const OLD_TOKEN = 'sber_previous_token';

function independentChecksum(params: Record<string, string>, token: string): string {
  const text = Object.keys(params)
    .filter((name) => name !== 'checksum' && name !== 'sign_alias')
    .sort()
    .map((name) => `${name};${params[name]};`)
    .join('');
  return createHmac('sha256', token).update(text, 'utf8').digest('hex').toUpperCase();
}

function signedQuery(params: Record<string, string>, token = TOKEN): string {
  return new URLSearchParams({
    ...params,
    checksum: independentChecksum(params, token),
  }).toString();
}

/** A GET callback: the ingress hands the query string over as latin1 bytes, with no body headers. */
function get(query: string): InboundWebhook {
  return { rawBody: Buffer.from(query, 'latin1'), headers: {}, receivedAt: new Date() };
}

/** A POST callback with the same parameters in a form body. */
function post(body: string): InboundWebhook {
  return {
    rawBody: Buffer.from(body, 'utf8'),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    receivedAt: new Date(),
  };
}

function provider(options: Partial<SberEndpointOptions> = {}) {
  return sberEndpoint({ name: 'sber', callbackToken: TOKEN, ...options }).provider;
}

/** Unsigned callbacks allowed, as the endpoint allows them: confirmed with Sber's API. */
const LENIENT = { allowUnsigned: true, verifyWithProvider: true } as const;

const DEPOSITED = {
  mdOrder: '06cf5599-3f17-7c86-bdbc-bd7d00a8b38b',
  orderNumber: 'order-1042',
  operation: 'deposited',
  status: '1',
  amount: '19200',
};

describe('sberEndpoint', () => {
  describe('verify (symmetric checksum)', () => {
    it('recomputes the documented vector independently', () => {
      expect(createHmac('sha256', DOCS_TOKEN).update(DOCS_STRING).digest('hex').toUpperCase()).toBe(
        DOCS_CHECKSUM,
      );
    });

    it.each([
      ['GET (query string)', get],
      ['POST (form body)', post],
    ])('accepts the documented vector delivered by %s', (_label, deliver) => {
      expect(() =>
        provider({ callbackToken: DOCS_TOKEN }).verify(deliver(DOCS_QUERY)),
      ).not.toThrow();
    });

    it('compares the checksum case-insensitively', () => {
      const query = DOCS_QUERY.replace(DOCS_CHECKSUM, DOCS_CHECKSUM.toLowerCase());
      expect(() => provider({ callbackToken: DOCS_TOKEN }).verify(get(query))).not.toThrow();
    });

    it('signs the decoded values, extra parameters and sign_alias handling included', () => {
      const params = {
        ...DEPOSITED,
        callbackCreationDate: 'Mon Jan 31 21:46:52 UTC 2022',
        approvalCode: '123456',
      };
      const query = `${signedQuery(params)}&sign_alias=SHA-256+with+RSA`;
      expect(query).toContain('callbackCreationDate=Mon+Jan+31+21%3A46%3A52+UTC+2022');
      expect(() => provider().verify(get(query))).not.toThrow();
    });

    it('accepts either token while two are configured (rotation)', () => {
      const rotating = provider({ callbackToken: [OLD_TOKEN, TOKEN] });
      expect(() => rotating.verify(post(signedQuery(DEPOSITED, TOKEN)))).not.toThrow();
      expect(() => rotating.verify(post(signedQuery(DEPOSITED, OLD_TOKEN)))).not.toThrow();
    });

    it.each([
      ['status', DOCS_QUERY.replace('status=1', 'status=0')],
      ['orderNumber', DOCS_QUERY.replace('orderNumber=2003', 'orderNumber=2004')],
      ['an added parameter', `${DOCS_QUERY}&amount=100`],
      ['a removed parameter', DOCS_QUERY.replace('&operation=approved', '')],
    ])('rejects a callback whose %s was changed', (_label, query) => {
      expect(rejection(() => provider({ callbackToken: DOCS_TOKEN }).verify(get(query)))).toEqual({
        name: 'WebhookVerificationError',
        reason: 'bad_signature',
        message: 'checksum does not match the Sber callback parameters and the configured key',
      });
    });

    it('rejects a checksum made with another token, without echoing token or checksum', () => {
      const error = rejection(() => provider().verify(get(DOCS_QUERY)));
      expect(error.reason).toBe('bad_signature');
      expect(error.message).not.toContain(DOCS_CHECKSUM);
      expect(error.message).not.toContain(TOKEN);
    });

    it('has no timestamp, so the receive time does not matter', () => {
      const request = { ...get(DOCS_QUERY), receivedAt: new Date('2001-01-01T00:00:00Z') };
      expect(() => provider({ callbackToken: DOCS_TOKEN }).verify(request)).not.toThrow();
    });

    it.each([
      ['absent', DOCS_QUERY.replace(`&checksum=${DOCS_CHECKSUM}`, '')],
      ['empty', DOCS_QUERY.replace(DOCS_CHECKSUM, '')],
    ])('rejects a callback whose checksum is %s as missing_signature', (_label, query) => {
      expect(rejection(() => provider().verify(get(query)))).toMatchObject({
        reason: 'missing_signature',
        message: 'Sber callback has no checksum parameter',
      });
    });

    it.each([
      ['not hex', 'Z'.repeat(64)],
      ['of odd length', DOCS_CHECKSUM.slice(1)],
    ])('rejects a checksum that is %s as bad_signature', (_label, checksum) => {
      const query = DOCS_QUERY.replace(DOCS_CHECKSUM, checksum);
      expect(rejection(() => provider().verify(get(query)))).toMatchObject({
        reason: 'bad_signature',
        message: 'Malformed checksum in the Sber callback: expected hex digits',
      });
    });

    it('refuses a parameter given twice, so the signed and the acted-on value cannot differ', () => {
      const query = `${DOCS_QUERY}&status=0`;
      expect(rejection(() => provider({ callbackToken: DOCS_TOKEN }).verify(get(query)))).toEqual({
        name: 'WebhookPayloadError',
        reason: 'invalid_payload',
        message:
          'Sber callback has the field "status" more than once; every field must appear once',
      });
    });

    it('refuses parameters that are not valid form encoding', () => {
      expect(rejection(() => provider().verify(get('mdOrder=%E0%A4&checksum=00')))).toMatchObject({
        name: 'WebhookPayloadError',
      });
    });
  });

  describe('verify (asymmetric checksum)', () => {
    it.each([
      ['the RBS test certificate as PEM', CERT_PEM, CERT_QUERY],
      ['the RBS test certificate as bare base64', CERT_BASE64, CERT_QUERY],
      ['the documented PEM public key', PUBLIC_KEY_PEM, PEM_QUERY],
    ])('accepts the documented vector with %s', (_label, publicKey, query) => {
      const asymmetric = provider({ callbackToken: undefined, publicKey });
      expect(() => asymmetric.verify(get(query))).not.toThrow();
      expect(() => asymmetric.verify(post(query))).not.toThrow();
    });

    it('accepts either key while two are configured (certificate renewal)', () => {
      const both = provider({ callbackToken: undefined, publicKey: [PUBLIC_KEY_PEM, CERT_PEM] });
      expect(() => both.verify(get(CERT_QUERY))).not.toThrow();
      expect(() => both.verify(get(PEM_QUERY))).not.toThrow();
    });

    it('accepts a symmetric or an asymmetric checksum when both are configured', () => {
      const both = provider({ callbackToken: DOCS_TOKEN, publicKey: PUBLIC_KEY_PEM });
      expect(() => both.verify(get(DOCS_QUERY))).not.toThrow();
      expect(() => both.verify(get(PEM_QUERY))).not.toThrow();
    });

    it.each([
      [
        'a changed amount',
        PEM_QUERY.replace('amount=35000099', 'amount=935000099'),
        PUBLIC_KEY_PEM,
      ],
      ['another key', PEM_QUERY, CERT_PEM],
      ['a truncated signature', PEM_QUERY.slice(0, -2), PUBLIC_KEY_PEM],
    ])('rejects a signature with %s', (_label, query, publicKey) => {
      expect(
        rejection(() => provider({ callbackToken: undefined, publicKey }).verify(get(query))),
      ).toMatchObject({ name: 'WebhookVerificationError', reason: 'bad_signature' });
    });
  });

  describe('unsigned callbacks', () => {
    const unsigned = 'mdOrder=06cf5599&orderNumber=2003&operation=deposited&status=1';

    it('are refused unless allowed', () => {
      expect(rejection(() => provider().verify(get(unsigned))).reason).toBe('missing_signature');
    });

    it('are accepted by a provider that allows them, which still checks a checksum it can', () => {
      const lenient = sberProvider.provider({ callbackToken: DOCS_TOKEN, ...LENIENT });
      expect(() => lenient.verify(get(unsigned))).not.toThrow();
      expect(() => lenient.verify(get(DOCS_QUERY))).not.toThrow();
      expect(rejection(() => lenient.verify(get(DOCS_QUERY.replace('2003', '2004')))).reason).toBe(
        'bad_signature',
      );
    });

    it('are all that a provider with no key sees: a checksum it cannot check is not checked', () => {
      const keyless = sberProvider.provider(LENIENT);
      expect(() => keyless.verify(get(unsigned))).not.toThrow();
      expect(() => keyless.verify(get(DOCS_QUERY.replace('2003', '2004')))).not.toThrow();
    });

    it('need verifyWithProvider: true on the endpoint', () => {
      const error = rejection(() => sberEndpoint({ name: 'sber', allowUnsigned: true }));
      expect(error.name).toBe(WebhookConfigurationError.name);
      expect(error.message).toMatch(/allowUnsigned needs verifyWithProvider: true/);
      expect(
        rejection(() =>
          sberEndpoint({ name: 'sber', allowUnsigned: true, verifyWithProvider: false }),
        ).message,
      ).toMatch(/allowUnsigned needs verifyWithProvider: true/);
    });
  });

  describe('configuration', () => {
    function configError(options: Partial<SberEndpointOptions>): string {
      const error = rejection(() =>
        sberEndpoint({ name: 'sber', ...options } as SberEndpointOptions),
      );
      expect(error.name).toBe(WebhookConfigurationError.name);
      return error.message;
    }

    it('answers exactly 200 with an empty body, to GET and POST', () => {
      const endpoint = sberEndpoint({ name: 'sber', callbackToken: TOKEN });
      expect(endpoint.provider.kind).toBe('sber');
      expect(endpoint.provider.methods).toEqual(['GET', 'POST']);
      expect(endpoint.acknowledgement).toEqual({
        status: 200,
        body: '',
        contentType: 'text/plain; charset=utf-8',
      });
    });

    it('requires a callbackToken or a publicKey', () => {
      expect(configError({})).toMatch(/"sber" \(sber\) has neither callbackToken nor publicKey/);
    });

    it('refuses blank tokens without quoting them', () => {
      expect(configError({ callbackToken: [TOKEN, ''] })).toMatch(/no usable callbackToken/);
      expect(configError({ callbackToken: [TOKEN, ''] })).not.toContain(TOKEN);
    });

    it.each([
      ['text that is no key', 'not a key'],
      ['an empty string', ''],
      ['an empty list', []],
    ])('refuses a publicKey that is %s', (_label, publicKey) => {
      expect(configError({ publicKey })).toMatch(
        /publicKey .*give the bank's callback certificate/,
      );
    });

    it('refuses a publicKey that is not RSA, naming which one in a list', () => {
      const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' })
        .publicKey.export({ type: 'spki', format: 'pem' })
        .toString();
      expect(configError({ publicKey: [PUBLIC_KEY_PEM, ec] })).toMatch(
        /publicKey \(publicKey\[1\]\) is not an RSA key/,
      );
    });

    it('refuses an allowUnsigned that is not a boolean', () => {
      expect(
        configError({ callbackToken: TOKEN, allowUnsigned: 'yes' as unknown as boolean }),
      ).toMatch(/allowUnsigned must be true or false/);
    });

    it.each([201, 204])('refuses acknowledgement status %p', (status) => {
      expect(configError({ callbackToken: TOKEN, acknowledgement: { status } })).toMatch(
        /counts only exactly HTTP 200 as delivered/,
      );
    });
  });

  describe('normalize', () => {
    function normalize(params: Record<string, string>): NormalizedNotification {
      return notificationsOf(provider().normalize(get(signedQuery(params))))[0];
    }

    it('maps the documented callback, from GET and from POST alike', () => {
      const expected = {
        eventId: '06cf5599-3f17-7c86-bdbc-bd7d00a8b38b:approved:1',
        type: 'payment.authorized',
        nativeType: 'approved',
        paymentRef: '06cf5599-3f17-7c86-bdbc-bd7d00a8b38b',
        merchantRef: '2003',
        status: '1',
        occurredAtSigned: true,
        payload: {
          mdOrder: '06cf5599-3f17-7c86-bdbc-bd7d00a8b38b',
          orderNumber: '2003',
          checksum: DOCS_CHECKSUM,
          operation: 'approved',
          status: '1',
        },
      };
      const sber = provider({ callbackToken: DOCS_TOKEN });
      expect(notificationsOf(sber.normalize(get(DOCS_QUERY)))[0]).toEqual(expected);
      expect(notificationsOf(sber.normalize(post(DOCS_QUERY)))[0]).toEqual(expected);
    });

    it.each([
      ['deposited', '1', 'payment.succeeded'],
      ['deposited', '0', 'payment.failed'],
      ['approved', '1', 'payment.authorized'],
      ['approved', '0', 'payment.failed'],
      ['reversed', '1', 'payment.canceled'],
      ['reversed', '0', 'sber:reversed'],
      ['refunded', '1', 'refund.succeeded'],
      ['refunded', '0', 'refund.failed'],
      ['declinedByTimeout', '1', 'payment.failed'],
      ['declinedByTimeout', '0', 'payment.failed'],
      ['declinedCardPresent', '0', 'sber:declinedCardPresent'],
      ['bindingCreated', '1', 'sber:bindingCreated'],
    ])('maps %s with status %s to %s', (operation, status, type) => {
      expect(normalize({ ...DEPOSITED, operation, status })).toMatchObject({
        type,
        nativeType: operation,
        status,
        eventId: `${DEPOSITED.mdOrder}:${operation}:${status}`,
      });
    });

    it('reads amount in kopecks, roubles by default', () => {
      expect(normalize(DEPOSITED)).toMatchObject({ amount: 19200, currency: 'RUB' });
    });

    it.each([
      ['643', 'RUB'],
      ['978', 'EUR'],
      ['usd', 'USD'],
      ['999', undefined],
    ])('reads currency %s as %s', (currency, expected) => {
      expect(normalize({ ...DEPOSITED, currency }).currency).toBe(expected);
    });

    it('leaves amount, currency and merchantRef out when the callback has none', () => {
      const { amount: _amount, orderNumber: _order, ...bare } = DEPOSITED;
      const result = normalize(bare);
      expect(result.amount).toBeUndefined();
      expect(result.currency).toBeUndefined();
      expect(result.merchantRef).toBeUndefined();
    });

    describe('partial refunds of one order', () => {
      const REFUNDED = { ...DEPOSITED, operation: 'refunded' };

      it('keys them by the refunded total, so each one is its own event', () => {
        const first = normalize({ ...REFUNDED, refundedAmount: '5000' });
        const second = normalize({ ...REFUNDED, refundedAmount: '7000' });
        expect(first.eventId).toBe(`${DEPOSITED.mdOrder}:refunded:1:5000`);
        expect(second.eventId).toBe(`${DEPOSITED.mdOrder}:refunded:1:7000`);
      });

      it.each([
        ['externalRefundId', ['refund-1', 'refund-2']],
        ['refundedDate', ['2025-03-01T10:00:00', '2025-03-01T10:05:00']],
        ['callbackCreationDate', ['Mon Jan 31 21:46:52 UTC 2022', 'Mon Jan 31 21:48:03 UTC 2022']],
      ])('tells two equal refunds apart by %s when refundedAmount is not sent', (name, values) => {
        const [first, second] = values.map((value) =>
          normalize({ ...REFUNDED, operationRefundedAmount: '3000', [name]: value }),
        );
        expect(first.eventId).toBe(`${DEPOSITED.mdOrder}:refunded:1:${values[0]}`);
        expect(second.eventId).toBe(`${DEPOSITED.mdOrder}:refunded:1:${values[1]}`);
      });

      it('prefers refundedAmount, then externalRefundId, then the dates', () => {
        const all = {
          ...REFUNDED,
          refundedAmount: '6000',
          externalRefundId: 'refund-2',
          refundedDate: '2025-03-01T10:05:00',
          callbackCreationDate: 'Mon Jan 31 21:48:03 UTC 2022',
        };
        expect(normalize(all).eventId).toBe(`${DEPOSITED.mdOrder}:refunded:1:6000`);
        const { refundedAmount: _total, ...withoutTotal } = all;
        expect(normalize(withoutTotal).eventId).toBe(`${DEPOSITED.mdOrder}:refunded:1:refund-2`);
      });

      it('reports the refund’s own amount (operationRefundedAmount), never the order’s', () => {
        expect(normalize({ ...REFUNDED, operationRefundedAmount: '3000' })).toMatchObject({
          type: 'refund.succeeded',
          amount: 3000,
          currency: 'RUB',
        });
        const withoutIt = normalize(REFUNDED);
        expect(withoutIt.amount).toBeUndefined();
        expect(withoutIt.currency).toBeUndefined();
      });
    });

    it('marks callbackCreationDate as signed only when a checksum was checked with a key', () => {
      const params = { ...DEPOSITED, callbackCreationDate: 'Mon Jan 31 21:46:52 UTC 2022' };
      expect(normalize(params).occurredAtSigned).toBe(true);
      const unsigned = notificationsOf(
        sberProvider
          .provider({ allowUnsigned: true, verifyWithProvider: true })
          .normalize(get(new URLSearchParams(params).toString())),
      )[0];
      expect(unsigned.occurredAt).toEqual(new Date('2022-01-31T21:46:52Z'));
      expect(unsigned.occurredAtSigned).toBe(false);
    });

    it('takes occurredAt from callbackCreationDate when it parses', () => {
      expect(
        normalize({ ...DEPOSITED, callbackCreationDate: 'Mon Jan 31 21:46:52 UTC 2022' })
          .occurredAt,
      ).toEqual(new Date('2022-01-31T21:46:52Z'));
      expect(normalize({ ...DEPOSITED, callbackCreationDate: 'soon' }).occurredAt).toBeUndefined();
    });

    it.each([
      ['no mdOrder', { mdOrder: '' }, /mdOrder is missing or empty/],
      ['no operation', { operation: '' }, /operation is missing or empty/],
      ['status 2', { status: '2' }, /status must be "1" \(success\) or "0" \(failure\)/],
      ['a fractional amount', { amount: '192.00' }, /amount must be a whole/],
      ['a negative amount', { amount: '-1' }, /amount must be a whole/],
      ['a refundedAmount that is no number', { refundedAmount: 'x' }, /refundedAmount must be/],
      [
        'an operationRefundedAmount that is no number',
        { operation: 'refunded', operationRefundedAmount: '30.00' },
        /operationRefundedAmount must be/,
      ],
    ])('refuses a callback with %s', (_label, change, message) => {
      const error = rejection(() => normalize({ ...DEPOSITED, ...change }));
      expect(error.name).toBe('WebhookPayloadError');
      expect(error.message).toMatch(/^Sber callback is not valid: /);
      expect(error.message).toMatch(message);
    });
  });
});
