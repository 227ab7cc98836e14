import { PROVIDER_DESCRIPTORS, descriptorNamed, descriptorOfKind } from './descriptors';
import * as providers from './endpoints';
import { PAYPAL_TEST_CA_PEM, PAYPAL_TEST_CERTIFICATE_PEM } from './paypal/paypal-test-certificate';
import { WebhookEndpoint } from './webhook-provider.interface';

/**
 * Each endpoint factory the package exports, built with the least it accepts, so its kind is the
 * factory's default. A new factory fails the first test until it is added here, and the second
 * until its kind has a descriptor.
 */
const FACTORIES: Readonly<Record<string, () => WebhookEndpoint>> = {
  stripeEndpoint: () => providers.stripeEndpoint({ name: 'stripe', secret: 'whsec_descriptors' }),
  standardWebhooksEndpoint: () =>
    providers.standardWebhooksEndpoint({
      name: 'standard',
      secret: `whsec_${Buffer.from('descriptors').toString('base64')}`,
    }),
  qvardEndpoint: () => providers.qvardEndpoint({ name: 'qvard', secret: 'qvard-descriptors' }),
  hmacEndpoint: () => providers.hmacEndpoint({ name: 'hmac', secret: 'hmac-descriptors' }),
  tbankEndpoint: () => providers.tbankEndpoint({ name: 'tbank', password: 'tbank-descriptors' }),
  sberEndpoint: () => providers.sberEndpoint({ name: 'sber', callbackToken: 'sber-descriptors' }),
  yoomoneyEndpoint: () =>
    providers.yoomoneyEndpoint({ name: 'yoomoney', notificationSecret: 'yoomoney-descriptors' }),
  yookassaEndpoint: () =>
    providers.yookassaEndpoint({ name: 'yookassa', verifyWithProvider: false }),
  paypalEndpoint: () =>
    providers.paypalEndpoint({
      name: 'paypal',
      webhookId: 'WH-DESCRIPTORS',
      certificateResolver: async () => PAYPAL_TEST_CERTIFICATE_PEM,
      trustedRoots: PAYPAL_TEST_CA_PEM,
    }),
  paddleEndpoint: () =>
    providers.paddleEndpoint({ name: 'paddle', secret: 'pdl_ntfset_descriptors' }),
  squareEndpoint: () =>
    providers.squareEndpoint({
      name: 'square',
      signatureKey: 'square-descriptors',
      notificationUrl: 'https://shop.example.test/webhooks/square',
    }),
  adyenEndpoint: () =>
    providers.adyenEndpoint({
      name: 'adyen',
      hmacKey: '44782DEF547AAA06C910C43932B1EB0C71FC68D9D0C057550C48EC2ACF6BA056',
    }),
};

function exportedEndpointFactories(): string[] {
  return Object.entries(providers)
    .filter(([name, value]) => typeof value === 'function' && /^[a-z]\w*Endpoint$/.test(name))
    .map(([name]) => name)
    .filter((name) => name !== 'defineEndpoint')
    .sort();
}

describe('provider descriptors', () => {
  it('knows every endpoint factory the package exports', () => {
    expect(Object.keys(FACTORIES).sort()).toEqual(exportedEndpointFactories());
  });

  it("has one descriptor per endpoint factory's kind, and none without a factory", () => {
    const factoryKinds = Object.values(FACTORIES).map((build) => build().provider.kind);
    const descriptorKinds = PROVIDER_DESCRIPTORS.map((descriptor) => descriptor.kind);
    expect([...descriptorKinds].sort()).toEqual([...factoryKinds].sort());
    expect(new Set(descriptorKinds).size).toBe(descriptorKinds.length);
  });

  it('finds a descriptor by kind, and by kind or alias in any case', () => {
    expect(descriptorOfKind('tbank')?.name).toBe('T-Bank');
    expect(descriptorOfKind('tinkoff')).toBeUndefined();
    expect(descriptorOfKind('github')).toBeUndefined();
    expect(descriptorNamed('Tinkoff')?.kind).toBe('tbank');
    expect(descriptorNamed('svix')?.kind).toBe('standard');
    expect(descriptorNamed('constructor')).toBeUndefined();
  });

  it('lets no alias name two providers or shadow a kind', () => {
    const names = PROVIDER_DESCRIPTORS.flatMap((descriptor) => [
      descriptor.kind,
      ...(descriptor.aliases ?? []),
    ]);
    expect(new Set(names).size).toBe(names.length);
  });
});
