import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ensureBuiltCli } from '../support/cli';

const ROOT = join(__dirname, '..', '..');

/**
 * Each entry's runtime names, as an app sees them in the built package. A new export fails this
 * list on purpose: add it only when an app needs it from that entry (see the comment at the top
 * of lib/index.ts); the root and `/express` also keep to the sizes below.
 */
const ENTRY_EXPORTS: Record<string, readonly string[]> = {
  '.': [
    'AdminBasicAuthGuard',
    'InboxQueries',
    'InboxWorker',
    'InboxWriter',
    'NonRetryableError',
    'OnPaymentEvent',
    'PaymentWebhook',
    'PendingPaymentsSource',
    'RawBodyUnavailableException',
    'ReconciliationService',
    'UnknownWebhookEndpointException',
    'UnsupportedWebhookMediaTypeException',
    'WEBHOOKS_MODULE_OPTIONS',
    'WEBHOOKS_TRANSPORT',
    'WebhookAdmin',
    'WebhookAlerts',
    'WebhookConfigurationError',
    'WebhookDispatcher',
    'WebhookPayloadError',
    'WebhookPayloadException',
    'WebhookRefusalException',
    'WebhookRetention',
    'WebhookSignatureException',
    'WebhookSourceForbiddenException',
    'WebhookStore',
    'WebhookStoreUnavailableException',
    'WebhookTelemetry',
    'WebhookTooLargeException',
    'WebhookTransactions',
    'WebhookVerificationError',
    'WebhooksHealthIndicator',
    'WebhooksMetrics',
    'WebhooksModule',
    'adyenEndpoint',
    'braintreeEndpoint',
    'checkoutComEndpoint',
    'cloudPaymentsEndpoint',
    'defineEndpoint',
    'dodoPaymentsEndpoint',
    'goCardlessEndpoint',
    'hmacEndpoint',
    'lemonSqueezyEndpoint',
    'mercadoPagoEndpoint',
    'mollieEndpoint',
    'paddleEndpoint',
    'paypalEndpoint',
    'paystackEndpoint',
    'polarEndpoint',
    'qvardEndpoint',
    'razorpayEndpoint',
    'robokassaEndpoint',
    'sberEndpoint',
    'squareEndpoint',
    'standardWebhooksEndpoint',
    'stripeEndpoint',
    'tbankEndpoint',
    'tenantEndpoint',
    'webhookEntities',
    'webhooksMigrations',
    'yookassaEndpoint',
    'yoomoneyEndpoint',
  ],
  './express': [
    'NonRetryableError',
    'WebhookConfigurationError',
    'WebhookPayloadError',
    'WebhookVerificationError',
    'adyenEndpoint',
    'braintreeEndpoint',
    'checkoutComEndpoint',
    'cloudPaymentsEndpoint',
    'createWebhooksRouter',
    'defineEndpoint',
    'dodoPaymentsEndpoint',
    'goCardlessEndpoint',
    'hmacEndpoint',
    'lemonSqueezyEndpoint',
    'mercadoPagoEndpoint',
    'mollieEndpoint',
    'paddleEndpoint',
    'paypalEndpoint',
    'paystackEndpoint',
    'polarEndpoint',
    'qvardEndpoint',
    'razorpayEndpoint',
    'robokassaEndpoint',
    'sberEndpoint',
    'squareEndpoint',
    'standardWebhooksEndpoint',
    'stripeEndpoint',
    'tbankEndpoint',
    'tenantEndpoint',
    'webhookEntities',
    'webhooksMigrations',
    'yookassaEndpoint',
    'yoomoneyEndpoint',
  ],
  './testing': [
    'ADYEN_EXAMPLE_HMAC_KEY',
    'ADYEN_EXAMPLE_ITEM',
    'ADYEN_EXAMPLE_SIGNATURE',
    'ADYEN_MERCHANT_ACCOUNT',
    'ADYEN_MERCHANT_REFERENCE',
    'ADYEN_PAYMENT_PSP_REFERENCE',
    'PAYPAL_TEST_CA_PEM',
    'PAYPAL_TEST_CERTIFICATE_PEM',
    'PAYPAL_TEST_CERT_URL',
    'PAYPAL_TEST_PRIVATE_KEY_PEM',
    'WebhookTestClient',
    'YOOKASSA_ORDER_ID',
    'YOOKASSA_PAYMENT_ID',
    'YOOKASSA_REFUND_ID',
    'adyenNotificationItem',
    'braintreeFixtures',
    'braintreeNotificationXml',
    'checkoutComFixtures',
    'cloudPaymentsFixtures',
    'dodoPaymentsFixtures',
    'generateStandardWebhooksKeyPair',
    'goCardlessFixtures',
    'lemonSqueezyFixtures',
    'mercadoPagoFixtures',
    'mollieFixtures',
    'paddleFixtures',
    'paypalFixtures',
    'paystackFixtures',
    'polarFixtures',
    'razorpayFixtures',
    'robokassaFixtures',
    'robokassaSignatureBase',
    'sberChecksumString',
    'sberFixtures',
    'settled',
    'signAdyenDelivery',
    'signBraintreeDelivery',
    'signCheckoutComDelivery',
    'signCloudPaymentsDelivery',
    'signDodoPaymentsDelivery',
    'signGoCardlessDelivery',
    'signHmac',
    'signHmacDelivery',
    'signLemonSqueezyDelivery',
    'signMercadoPagoDelivery',
    'signMollieDelivery',
    'signPaddleDelivery',
    'signPayPalDelivery',
    'signPaystackDelivery',
    'signPolarDelivery',
    'signQvard',
    'signQvardDelivery',
    'signRazorpayDelivery',
    'signRobokassaDelivery',
    'signSberDelivery',
    'signSquareDelivery',
    'signStandardWebhook',
    'signStandardWebhookDelivery',
    'signStripe',
    'signStripeDelivery',
    'signStripeEventNotification',
    'signTBankDelivery',
    'signYooMoneyDelivery',
    'squareFixtures',
    'startYooKassaTestApi',
    'stripeFixtures',
    'tbankFixtures',
    'yookassaDeal',
    'yookassaDelivery',
    'yookassaPayment',
    'yookassaPayout',
    'yookassaRefund',
    'yoomoneyFixtures',
    'yoomoneyNotificationHash',
  ],
  './idempotency': [
    'CreateIdempotencyTables1764560000000',
    'DEFAULT_IDEMPOTENCY_TTL_MS',
    'DEFAULT_IDEMPOTENT_CALL_TTL_MS',
    'IDEMPOTENCY_MODULE_OPTIONS',
    'IdempotencyKeyEntity',
    'IdempotencyKeyFormatError',
    'IdempotencyKeyInProgressError',
    'IdempotencyKeyInUseException',
    'IdempotencyKeyMalformedException',
    'IdempotencyKeyMissingException',
    'IdempotencyKeyReusedException',
    'IdempotencyModule',
    'IdempotencyStore',
    'IdempotencyStoreUnavailableException',
    'Idempotent',
    'IdempotentCall',
    'IdempotentCallEntity',
    'MAX_IDEMPOTENCY_TTL_MS',
    'MIN_IDEMPOTENCY_TTL_MS',
    'idempotencyEntities',
    'idempotencyKeyFor',
    'idempotencyMigrations',
  ],
  './providers': [
    'BraintreeStatusClient',
    'MIN_DEDUP_DAYS',
    'MercadoPagoStatusClient',
    'MollieStatusClient',
    'PAYPAL_DEFAULT_TOLERANCE_SECONDS',
    'PAYSTACK_IP_ADDRESSES',
    'PROVIDER_RETRY_HORIZONS',
    'PayPalStatusClient',
    'ProviderStatusError',
    'RazorpayStatusClient',
    'SberStatusClient',
    'StripeStatusClient',
    'TBankStatusClient',
    'YOOKASSA_API_URL',
    'YOOKASSA_IP_RANGES',
    'YooKassaStatusClient',
    'createPayPalCertificateResolver',
    'decodeAdyenHmacKey',
    'tbankToken',
  ],
  './payments': [
    'PAYMENT_EVENT_TYPES',
    'applyPaymentEvent',
    'definePaymentStates',
    'fitToColumn',
    'isPaymentEventType',
    'isPaymentStateMachine',
    'paymentStateTarget',
    'transition',
  ],
  './observability': [],
  './bullmq': ['BullmqWebhookTransport', 'WEBHOOK_JOB_NAME', 'bullmqTransport', 'webhookJobId'],
};

/**
 * The most runtime names an entry may have besides one endpoint factory per provider folder
 * (`stripeEndpoint`, …, which grow with the providers): the root and the Express entry stay small.
 */
// NOTE: /express grew by tenantEndpoint, which a platform on plain Express needs as much as one on Nest.
const MOST_NAMES: Record<string, number> = { '.': 38, './express': 9 };

/** A provider folder's endpoint factory: `<provider>Endpoint`, not `defineEndpoint` or `tenantEndpoint`. */
const isProviderFactory = (name: string) =>
  /^[a-z][A-Za-z]*Endpoint$/.test(name) && name !== 'defineEndpoint' && name !== 'tenantEndpoint';

/** Internals that an app once could import from the root and now cannot. */
const PRIVATE_NAMES = [
  'StripeWebhookProvider',
  'SberWebhookProvider',
  'WebhookEventEntity',
  'WebhookHandlerRunEntity',
  'CreateWebhooksTables1764400000000',
  'AddEventOutcomes1764500000000',
  'notificationsOf',
  'adyenSigningString',
  'redact',
];

interface PackageJson {
  main: string;
  types: string;
  exports: Record<string, string | { types: string; default: string }>;
  typesVersions: { '*': Record<string, string[]> };
}

const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as PackageJson;

/** The package's subpath entries (`./testing`, …) with their files, from package.json. */
function subpaths(): Array<[string, { types: string; default: string }]> {
  return Object.entries(pkg.exports)
    .filter(([path]) => path !== '.' && path !== './package.json')
    .map(([path, target]) => {
      if (typeof target === 'string') throw new Error(`${path} has no types/default conditions`);
      return [path, target];
    });
}

function load(file: string): Record<string, unknown> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require(join(ROOT, file)) as Record<string, unknown>;
}

describe('public surface of the built package', () => {
  beforeAll(() => ensureBuiltCli(), 120_000);

  it.each(Object.keys(ENTRY_EXPORTS))('exports exactly the pinned names from %s', (path) => {
    const file = path === '.' ? pkg.main : (pkg.exports[path] as { default: string }).default;
    expect(Object.keys(load(file)).sort()).toEqual([...ENTRY_EXPORTS[path]].sort());
    expect(
      ENTRY_EXPORTS[path].filter((name) => !isProviderFactory(name)).length,
    ).toBeLessThanOrEqual(MOST_NAMES[path] ?? Infinity);
  });

  it('pins every entry package.json declares', () => {
    expect(['.', ...subpaths().map(([path]) => path)].sort()).toEqual(
      Object.keys(ENTRY_EXPORTS).sort(),
    );
  });

  it('keeps internals out of the root entry', () => {
    const root = load(pkg.main);
    for (const name of PRIVATE_NAMES) expect(root).not.toHaveProperty(name);
  });

  it('declares the root entry and every subpath with files that exist', () => {
    expect(pkg.exports['.']).toEqual({ types: `./${pkg.types}`, default: `./${pkg.main}` });
    expect(existsSync(join(ROOT, pkg.types))).toBe(true);
    expect(existsSync(join(ROOT, pkg.main))).toBe(true);
    expect(subpaths().map(([path]) => path)).toEqual(
      expect.arrayContaining([
        './testing',
        './idempotency',
        './providers',
        './payments',
        './observability',
      ]),
    );
    for (const [path, target] of subpaths()) {
      expect({ path, types: existsSync(join(ROOT, target.types)) }).toEqual({ path, types: true });
      expect({ path, main: existsSync(join(ROOT, target.default)) }).toEqual({ path, main: true });
    }
  });

  it('points typesVersions at the same declarations as exports, for older TypeScript settings', () => {
    const declared = Object.fromEntries(
      subpaths().map(([path, target]) => [path.slice(2), [target.types.slice(2)]]),
    );
    expect(pkg.typesVersions['*']).toEqual(declared);
  });

  it('loads each subpath entry, and none but /express repeats a root value', () => {
    const root = load(pkg.main);
    // NOTE: `/express` is a whole entry of its own (endpoint factories, errors, migrations), so
    // a plain Express app never imports the root, which loads Nest; every value it shares with
    // the root must be the same value.
    for (const [path, target] of subpaths()) {
      const entry = load(target.default);
      if (path === './express') {
        const shared = Object.keys(entry).filter((name) => name in root);
        expect(shared).toEqual(expect.arrayContaining(['stripeEndpoint', 'webhooksMigrations']));
        expect(shared.filter((name) => entry[name] !== root[name])).toEqual([]);
        continue;
      }
      const shared = Object.keys(entry).filter((name) => name in root);
      expect({ path, shared }).toEqual({ path, shared: [] });
    }
  });

  it('loads the bullmq entry without any Nest package, with the transport and its job helpers', () => {
    // NOTE: a fresh process, so what this suite's own imports loaded does not count.
    const script =
      `const entry = require(${JSON.stringify(join(ROOT, 'dist', 'bullmq', 'index.js'))});` +
      "const loaded = Object.keys(require.cache).filter((path) => path.includes('@nestjs'));" +
      'process.stdout.write(JSON.stringify({ names: Object.keys(entry).sort(), loaded }));';
    const output = execFileSync(process.execPath, ['-e', script], { cwd: ROOT, encoding: 'utf8' });
    const { names, loaded } = JSON.parse(output) as { names: string[]; loaded: string[] };
    expect(loaded).toEqual([]);
    expect(names).toEqual(
      expect.arrayContaining([
        'BullmqWebhookTransport',
        'WEBHOOK_JOB_NAME',
        'bullmqTransport',
        'webhookJobId',
      ]),
    );
  });

  it('loads the testing entry without Nest, Express, Fastify or TypeORM', () => {
    // NOTE: a fresh process, as for bullmq; the YooKassa test API runs on node:http alone.
    const script =
      `const entry = require(${JSON.stringify(join(ROOT, 'dist', 'testing', 'index.js'))});` +
      "const names = ['@nestjs', 'express', 'fastify', 'typeorm'];" +
      'const loaded = Object.keys(require.cache).filter((path) =>' +
      " names.some((name) => path.includes('/node_modules/' + name + '/')));" +
      'process.stdout.write(JSON.stringify({ exported: Object.keys(entry), loaded }));';
    const output = execFileSync(process.execPath, ['-e', script], { cwd: ROOT, encoding: 'utf8' });
    const { exported, loaded } = JSON.parse(output) as { exported: string[]; loaded: string[] };
    expect(loaded).toEqual([]);
    expect(exported).toEqual(
      expect.arrayContaining(['signStripeDelivery', 'startYooKassaTestApi']),
    );
  });

  it('gives the providers and payments entries what the README shows imported from them', () => {
    const providers = load('dist/providers/index.js');
    for (const name of [
      'StripeStatusClient',
      'YooKassaStatusClient',
      'TBankStatusClient',
      'SberStatusClient',
      'createPayPalCertificateResolver',
      'YOOKASSA_IP_RANGES',
      'tbankToken',
      'PROVIDER_RETRY_HORIZONS',
    ]) {
      expect(providers).toHaveProperty(name);
    }
    const payments = load('dist/payments/index.js');
    for (const name of [
      'definePaymentStates',
      'paymentStateTarget',
      'transition',
      'applyPaymentEvent',
    ]) {
      expect(typeof payments[name]).toBe('function');
    }
  });
});
