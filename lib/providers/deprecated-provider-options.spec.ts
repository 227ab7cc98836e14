import { IncomingMessage, Server, ServerResponse, createServer } from 'node:http';
import { AddressInfo } from 'node:net';
import { WebhookConfigurationError } from '../core/webhook-errors';
import { rejection } from '../spec-support/rejection';
import { dodoPaymentsEndpoint } from './dodo-payments/dodo-payments.provider';
import { signDodoPaymentsDelivery } from './dodo-payments/dodo-payments.signer';
import { goCardlessFixtures } from './gocardless/gocardless.fixtures';
import { goCardlessEndpoint } from './gocardless/gocardless.provider';
import { signGoCardlessDelivery } from './gocardless/gocardless.signer';
import { hmacEndpoint } from './hmac/hmac.provider';
import { signHmacDelivery } from './hmac/hmac.signer';
import { mercadoPagoFixtures } from './mercado-pago/mercado-pago.fixtures';
import { mercadoPagoEndpoint } from './mercado-pago/mercado-pago.provider';
import { signMercadoPagoDelivery } from './mercado-pago/mercado-pago.signer';
import { mollieFixtures } from './mollie/mollie.fixtures';
import { MollieEndpointOptions, mollieEndpoint } from './mollie/mollie.provider';
import { paddleEndpoint } from './paddle/paddle.provider';
import { signPaddleDelivery } from './paddle/paddle.signer';
import { PAYPAL_TEST_CA_PEM, PAYPAL_TEST_CERTIFICATE_PEM } from './paypal/paypal-test-certificate';
import { paypalEndpoint } from './paypal/paypal.provider';
import { signPayPalDelivery } from './paypal/paypal.signer';
import { PaymentStatusQuery } from './payment-status-client.interface';
import { polarEndpoint } from './polar/polar.provider';
import { signPolarDelivery } from './polar/polar.signer';
import { SignedDelivery } from './signed-delivery';
import { standardWebhooksEndpoint } from './standard-webhooks/standard-webhooks.provider';
import { signStandardWebhookDelivery } from './standard-webhooks/standard-webhooks.signer';
import { stripeEndpoint } from './stripe/stripe.provider';
import { signStripeDelivery } from './stripe/stripe.signer';
import { InboundWebhook, WebhookEndpoint } from './webhook-provider.interface';
import { YOOKASSA_PAYMENT_ID, yookassaPayment } from './yookassa/yookassa.fixtures';
import { YooKassaEndpointOptions, yookassaEndpoint } from './yookassa/yookassa.provider';
import { YooKassaTestApi, startYooKassaTestApi } from './yookassa/yookassa-test-api';
import { catchDeprecationWarnings } from '../spec-support/deprecation-warnings';

const warned = catchDeprecationWarnings();

const NOW = Math.floor(Date.now() / 1000);
/** Signed two minutes before it arrives: inside the default window of 300 s. */
const SIGNED_AT = NOW - 120;

function inbound(delivery: SignedDelivery, receivedAt = new Date(NOW * 1000)): InboundWebhook {
  const headers = Object.fromEntries(
    Object.entries(delivery.headers).map(([name, value]) => [name.toLowerCase(), value]),
  );
  return { rawBody: Buffer.from(delivery.body, 'utf8'), headers, receivedAt };
}

async function refusal(endpoint: WebhookEndpoint, request: InboundWebhook): Promise<unknown> {
  return Promise.resolve()
    .then(() => endpoint.provider.verify(request))
    .then(
      () => undefined,
      (error: unknown) => error,
    );
}

const WHSEC = `whsec_${Buffer.alloc(24, 0x61).toString('base64')}`;
const EVENT = JSON.stringify({
  type: 'payment.succeeded',
  timestamp: '2026-01-01T00:00:00Z',
  data: {},
});

interface WindowCase {
  /** Builds the endpoint with the options given on top of its required ones. */
  readonly build: (window: Record<string, number>) => WebhookEndpoint;
  /** A delivery signed at `SIGNED_AT`. */
  readonly signed: () => SignedDelivery;
}

const WINDOWS: Record<string, WindowCase> = {
  'stripeEndpoint()': {
    build: (window) => stripeEndpoint({ name: 'stripe', secret: 'whsec_window', ...window }),
    signed: () =>
      signStripeDelivery({
        type: 'payment_intent.succeeded',
        object: { id: 'pi_1', object: 'payment_intent' },
        secret: 'whsec_window',
        timestamp: SIGNED_AT,
      }),
  },
  'paddleEndpoint()': {
    build: (window) => paddleEndpoint({ name: 'paddle', secret: 'pdl_ntfset_x', ...window }),
    signed: () =>
      signPaddleDelivery({ payload: '{}', secret: 'pdl_ntfset_x', timestamp: SIGNED_AT }),
  },
  'polarEndpoint()': {
    build: (window) => polarEndpoint({ name: 'polar', secret: WHSEC, ...window }),
    signed: () => signPolarDelivery({ payload: EVENT, secret: WHSEC, timestamp: SIGNED_AT }),
  },
  'dodoPaymentsEndpoint()': {
    build: (window) => dodoPaymentsEndpoint({ name: 'dodo', secret: WHSEC, ...window }),
    signed: () => signDodoPaymentsDelivery({ payload: EVENT, secret: WHSEC, timestamp: SIGNED_AT }),
  },
  'standardWebhooksEndpoint()': {
    build: (window) => standardWebhooksEndpoint({ name: 'acme', secret: WHSEC, ...window }),
    signed: () =>
      signStandardWebhookDelivery({ payload: EVENT, secret: WHSEC, timestamp: SIGNED_AT }),
  },
  'hmacEndpoint()': {
    build: (window) =>
      hmacEndpoint({ name: 'hmac', secret: 'shared', timestampHeader: 'x-timestamp', ...window }),
    signed: () =>
      signHmacDelivery({
        payload: '{"id":"e1","type":"x"}',
        secret: 'shared',
        timestampHeader: 'x-timestamp',
        timestamp: SIGNED_AT,
      }),
  },
  'mercadoPagoEndpoint()': {
    build: (window) =>
      mercadoPagoEndpoint({
        name: 'mp',
        secret: 'mp-secret',
        verifyWithProvider: false,
        ...window,
      }),
    signed: () =>
      signMercadoPagoDelivery({
        payload: mercadoPagoFixtures.paymentUpdated(),
        secret: 'mp-secret',
        timestamp: SIGNED_AT,
      }),
  },
  'paypalEndpoint()': {
    build: (window) =>
      paypalEndpoint({
        name: 'paypal',
        webhookId: 'WH_WINDOW',
        certificateResolver: async () => PAYPAL_TEST_CERTIFICATE_PEM,
        trustedRoots: PAYPAL_TEST_CA_PEM,
        ...window,
      }),
    signed: () =>
      signPayPalDelivery({
        payload: '{"id":"WH-1","event_type":"PAYMENT.CAPTURE.COMPLETED","resource":{}}',
        webhookId: 'WH_WINDOW',
        transmissionTime: new Date(SIGNED_AT * 1000),
      }),
  },
};

describe('tolerance, read as toleranceSeconds', () => {
  it.each(Object.entries(WINDOWS))(
    '%s applies the old name: a delivery signed outside its window is refused, one inside accepted',
    async (_factory, { build, signed }) => {
      expect(await refusal(build({ tolerance: 60 }), inbound(signed()))).toMatchObject({
        reason: 'timestamp_out_of_window',
      });
      expect(await refusal(build({ tolerance: 180 }), inbound(signed()))).toBeUndefined();
      expect(await refusal(build({ toleranceSeconds: 60 }), inbound(signed()))).toMatchObject({
        reason: 'timestamp_out_of_window',
      });
    },
  );

  it('warned once in the process, however many factories and endpoints used it', () => {
    const messages = warned('NPW_DEP_TOLERANCE');
    expect(messages).toHaveLength(1);
    expect(messages[0]).toBe(
      'stripeEndpoint(): `tolerance` (seconds) is deprecated and will be removed in 2.0: use `toleranceSeconds`.',
    );
  });

  it.each(Object.entries(WINDOWS))(
    '%s refuses both names with different values at startup, naming the one to keep',
    (_factory, { build }) => {
      const error = rejection(() => build({ tolerance: 60, toleranceSeconds: 120 }));
      expect(error.name).toBe(WebhookConfigurationError.name);
      expect(error.message).toMatch(
        /`tolerance` and `toleranceSeconds` are both given, with different values.*remove `tolerance` and keep `toleranceSeconds`/,
      );
      expect(() => build({ tolerance: 60, toleranceSeconds: 60 })).not.toThrow();
    },
  );
});

describe("GoCardless's webhookSecret, read as secret", () => {
  const SECRET = 'gc-old-name';
  const webhook = () =>
    goCardlessFixtures.webhook(goCardlessFixtures.paymentConfirmed({ orderId: 'order-1' }));

  it('verifies with the old name, warns once, and refuses both with different values', async () => {
    const delivery = signGoCardlessDelivery({ payload: webhook(), secret: SECRET });
    const old = () => goCardlessEndpoint({ name: 'gc', webhookSecret: SECRET });
    expect(await refusal(old(), inbound(delivery))).toBeUndefined();
    const other = goCardlessEndpoint({ name: 'gc', webhookSecret: 'another' });
    expect(await refusal(other, inbound(delivery))).toMatchObject({ reason: 'bad_signature' });
    old();
    expect(warned('NPW_DEP_GOCARDLESS_WEBHOOK_SECRET')).toEqual([
      'goCardlessEndpoint(): `webhookSecret` (a secret or a list of them, as before) is deprecated and will be removed in 2.0: use `secret`.',
    ]);
    const both = rejection(() =>
      goCardlessEndpoint({ name: 'gc', secret: SECRET, webhookSecret: 'another' }),
    );
    expect(both.name).toBe(WebhookConfigurationError.name);
    expect(both.message).toMatch(/"gc" \(gocardless\).*remove `webhookSecret` and keep `secret`/);
  });

  it('signs with the old name in signGoCardlessDelivery(), warning once', async () => {
    const delivery = signGoCardlessDelivery({ payload: webhook(), webhookSecret: SECRET });
    signGoCardlessDelivery({ payload: webhook(), webhookSecret: SECRET });
    const endpoint = goCardlessEndpoint({ name: 'gc', secret: SECRET });
    expect(await refusal(endpoint, inbound(delivery))).toBeUndefined();
    expect(warned('NPW_DEP_GOCARDLESS_SIGNER_WEBHOOK_SECRET')).toHaveLength(1);
  });
});

/** A local API that records each request's Authorization and answers after `delayMs`. */
class RecordingApi {
  readonly authorizations: (string | undefined)[] = [];
  delayMs = 0;
  private constructor(
    private readonly server: Server,
    private readonly body: unknown,
  ) {}

  static async start(body: unknown): Promise<RecordingApi> {
    const server = createServer();
    const api = new RecordingApi(server, body);
    server.on('request', (request: IncomingMessage, response: ServerResponse) => {
      api.authorizations.push(request.headers.authorization);
      setTimeout(() => {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify(api.body));
      }, api.delayMs);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return api;
  }

  url(path: string): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}${path}`;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

function query(paymentRef: string, payload: unknown = {}): PaymentStatusQuery {
  return {
    paymentRef,
    merchantRef: null,
    type: 'payment.succeeded',
    nativeType: 'payment.succeeded',
    payload: payload as PaymentStatusQuery['payload'],
  };
}

describe("Mollie's flat apiKey, apiUrl and timeoutMs, read as api: { … }", () => {
  const KEY = 'test_dHar4XY7LxsDOtmnkVtjNVWXLSlXsM';
  const payment = mollieFixtures.payment({ status: 'paid', amount: 1000 });
  let api: RecordingApi;
  beforeAll(async () => (api = await RecordingApi.start(payment)));
  afterAll(() => api.close());

  it('asks the API with the old names: their key, at their URL, within their timeout', async () => {
    const flat = { name: 'mollie', apiKey: KEY, apiUrl: api.url('/v2'), timeoutMs: 200 };
    const endpoint = mollieEndpoint(flat);
    mollieEndpoint(flat);
    expect(endpoint.verifyWithProvider).toBe(true);
    const id = payment.id as string;
    await expect(endpoint.statusClient!.fetchStatus(query(id))).resolves.toMatchObject({
      paymentRef: id,
      status: 'paid',
    });
    expect(api.authorizations).toEqual([`Bearer ${KEY}`]);
    api.delayMs = 1000;
    await expect(endpoint.statusClient!.fetchStatus(query(id))).rejects.toMatchObject({
      failure: 'timeout',
    });
    api.delayMs = 0;
    for (const [option, code] of [
      ['apiKey', 'NPW_DEP_MOLLIE_API_KEY'],
      ['apiUrl', 'NPW_DEP_MOLLIE_API_URL'],
      ['timeoutMs', 'NPW_DEP_MOLLIE_TIMEOUT_MS'],
    ]) {
      expect(warned(code)).toEqual([
        expect.stringMatching(
          new RegExp(`^mollieEndpoint\\(\\): \`${option}\` .* use \`api\\.${option}\`\\.$`),
        ),
      ]);
    }
  });

  it.each<[string, Partial<MollieEndpointOptions>]>([
    ['apiKey', { apiKey: 'live_other', api: { apiKey: KEY } }],
    [
      'apiUrl',
      {
        apiUrl: 'https://elsewhere.test/v2',
        api: { apiKey: KEY, apiUrl: 'https://api.mollie.com/v2' },
      },
    ],
    ['timeoutMs', { timeoutMs: 500, api: { apiKey: KEY, timeoutMs: 1000 } }],
  ])('refuses %s given flat and under api with different values', (option, options) => {
    const error = rejection(() => mollieEndpoint({ name: 'mollie', ...options }));
    expect(error.name).toBe(WebhookConfigurationError.name);
    expect(error.message).toContain(`remove \`${option}\` and keep \`api.${option}\``);
  });
});

describe("YooKassa's flat shopId, secretKey, apiUrl and timeoutMs, read as api: { … }", () => {
  let api: YooKassaTestApi;
  beforeAll(async () => {
    api = await startYooKassaTestApi({ shopId: '506751', secretKey: 'test_old_names' });
    api.payments.set(YOOKASSA_PAYMENT_ID, yookassaPayment('succeeded'));
  });
  afterAll(() => api.close());

  it('asks the API with the old names: their shop, secret key and URL', async () => {
    const flat = {
      name: 'yookassa',
      shopId: '506751',
      secretKey: 'test_old_names',
      apiUrl: api.url,
    };
    const endpoint = yookassaEndpoint(flat);
    yookassaEndpoint(flat);
    const notification = { type: 'notification', event: 'payment.succeeded', object: {} };
    await expect(
      endpoint.statusClient!.fetchStatus(query(YOOKASSA_PAYMENT_ID, notification)),
    ).resolves.toMatchObject({ status: 'succeeded', type: 'payment.succeeded' });
    const basic = `Basic ${Buffer.from('506751:test_old_names').toString('base64')}`;
    expect(api.requests.map((request) => request.headers.authorization)).toEqual([basic]);
    for (const [option, code] of [
      ['shopId', 'NPW_DEP_YOOKASSA_SHOP_ID'],
      ['secretKey', 'NPW_DEP_YOOKASSA_SECRET_KEY'],
      ['apiUrl', 'NPW_DEP_YOOKASSA_API_URL'],
    ]) {
      expect(warned(code)).toEqual([
        expect.stringMatching(
          new RegExp(`^yookassaEndpoint\\(\\): \`${option}\` .* \`api\\.${option}\``),
        ),
      ]);
    }
  });

  it('waits no longer than the old timeoutMs', async () => {
    const slow = await RecordingApi.start(yookassaPayment('succeeded'));
    try {
      slow.delayMs = 1000;
      const endpoint = yookassaEndpoint({
        name: 'yookassa',
        api: { shopId: '506751', secretKey: 'test_old_names', apiUrl: slow.url('/v3') },
        timeoutMs: 200,
      });
      await expect(
        endpoint.statusClient!.fetchStatus(query(YOOKASSA_PAYMENT_ID)),
      ).rejects.toMatchObject({ failure: 'timeout' });
      expect(warned('NPW_DEP_YOOKASSA_TIMEOUT_MS')).toEqual([
        'yookassaEndpoint(): `timeoutMs` (milliseconds, now under `api`) is deprecated and will be removed in 2.0: use `api.timeoutMs`.',
      ]);
    } finally {
      await slow.close();
    }
  });

  it.each<[string, Partial<YooKassaEndpointOptions>]>([
    ['shopId', { shopId: '1', api: { shopId: '2', secretKey: 'test_x' } }],
    ['secretKey', { secretKey: 'test_y', api: { shopId: '2', secretKey: 'test_x' } }],
    [
      'apiUrl',
      {
        apiUrl: 'https://a.test/v3',
        api: { shopId: '2', secretKey: 'test_x', apiUrl: 'https://b.test/v3' },
      },
    ],
    ['timeoutMs', { timeoutMs: 1, api: { shopId: '2', secretKey: 'test_x', timeoutMs: 2 } }],
  ])('refuses %s given flat and under api with different values', (option, options) => {
    const error = rejection(() => yookassaEndpoint({ name: 'yookassa', ...options }));
    expect(error.name).toBe(WebhookConfigurationError.name);
    expect(error.message).toContain(`remove \`${option}\` and keep \`api.${option}\``);
    expect(error.message).not.toContain('test_x');
  });
});
