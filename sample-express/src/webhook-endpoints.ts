import {
  adyenEndpoint,
  hmacEndpoint,
  paddleEndpoint,
  paypalEndpoint,
  qvardEndpoint,
  sberEndpoint,
  squareEndpoint,
  standardWebhooksEndpoint,
  stripeEndpoint,
  tbankEndpoint,
  tenantEndpoint,
  yookassaEndpoint,
  yoomoneyEndpoint,
} from 'nestjs-payment-webhooks/express';
import type { PayPalCertificateResolver, WebhookEndpoint } from 'nestjs-payment-webhooks/express';
import { YOOKASSA_IP_RANGES } from 'nestjs-payment-webhooks/providers';
import { MerchantSecrets } from '../../sample-app/src/merchants/merchant-secrets';
import { SecretName, secretOrDevelopment, setting } from '../../sample-app/src/shop-settings';

/** What tests (or a staging setup) may replace in the shop's endpoints. */
export interface EndpointOverrides {
  /** Where PayPal signing certificates come from; by default they are fetched from PayPal. */
  paypalCertificates?: PayPalCertificateResolver;
  /** The CA certificates (PEM) PayPal's must chain to; by default Node's bundled roots. */
  paypalTrustedRoots?: string;
}

/** A secret from the environment, or the documented development one with a loud warning. */
export const secret = (name: SecretName) =>
  secretOrDevelopment(name, (message) => console.warn(`[SampleShop] ${message}`));

/**
 * The shop's webhook endpoints, the same as the Nest shop's (sample-app/src/webhook-endpoints.ts)
 * from the same environment variables: one per provider at `POST /webhooks/<name>` (Sber also
 * calls back with GET), and the merchants' at `POST /webhooks/merchants/{slug}`, each verified
 * with its own secrets from the merchants table that `merchants` reads. Each provider carries
 * the shop's order id in its own field: Stripe in `metadata.orderId`, T-Bank in `OrderId`, Sber
 * in `orderNumber`, Adyen in `merchantReference`, Paddle in `custom_data.orderId`, YooKassa in
 * `metadata.orderId`, YooMoney in `label`, PayPal in `custom_id`, Square in `reference_id`.
 */
export function webhookEndpoints(
  merchants: MerchantSecrets,
  overrides: EndpointOverrides = {},
): WebhookEndpoint[] {
  const yookassaIps = setting('YOOKASSA_ALLOWED_IPS', '');
  return [
    stripeEndpoint({ name: 'stripe', secret: secret('STRIPE_WEBHOOK_SECRET') }),
    qvardEndpoint({ name: 'qvard', secret: secret('QVARD_SECRET_KEY') }),
    standardWebhooksEndpoint({ name: 'standard', secret: secret('STANDARD_WEBHOOK_SECRET') }),
    hmacEndpoint({
      name: 'hmac',
      secret: secret('HMAC_WEBHOOK_SECRET'),
      signatureHeader: 'x-signature',
      timestampHeader: 'x-timestamp',
      eventIdPath: 'id',
      typePath: 'type',
      merchantRefPath: 'data.orderId',
    }),
    tbankEndpoint({ name: 'tbank', password: secret('TBANK_PASSWORD') }),
    sberEndpoint({ name: 'sber', callbackToken: secret('SBER_CALLBACK_TOKEN') }),
    adyenEndpoint({ name: 'adyen', hmacKey: secret('ADYEN_HMAC_KEY') }),
    paddleEndpoint({ name: 'paddle', secret: secret('PADDLE_WEBHOOK_SECRET') }),
    yookassaEndpoint({
      name: 'yookassa',
      api: {
        shopId: secret('YOOKASSA_SHOP_ID'),
        secretKey: secret('YOOKASSA_SECRET_KEY'),
        // NOTE: YooKassa's own API unless YOOKASSA_API_URL points elsewhere (a test double).
        apiUrl: setting('YOOKASSA_API_URL', '') || undefined,
      },
      allowedIps:
        yookassaIps === ''
          ? YOOKASSA_IP_RANGES
          : yookassaIps.split(',').map((range) => range.trim()),
    }),
    yoomoneyEndpoint({
      name: 'yoomoney',
      notificationSecret: secret('YOOMONEY_NOTIFICATION_SECRET'),
    }),
    paypalEndpoint({
      name: 'paypal',
      webhookId: secret('PAYPAL_WEBHOOK_ID'),
      certificateResolver: overrides.paypalCertificates,
      trustedRoots: overrides.paypalTrustedRoots,
    }),
    squareEndpoint({
      name: 'square',
      signatureKey: secret('SQUARE_SIGNATURE_KEY'),
      notificationUrl: setting('SQUARE_NOTIFICATION_URL', 'http://localhost:3000/webhooks/square'),
    }),
    tenantEndpoint(stripeEndpoint, {
      name: 'merchants',
      resolveTenant: (lookup) => merchants.settingsOf(lookup),
    }),
  ];
}
