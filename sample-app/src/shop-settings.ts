/**
 * The shop's settings from the environment, shared by the Nest shop and the plain Express shop.
 * Plain code: it loads no framework.
 */

/** Development secrets, used only when the environment sets none. Never use them in production. */
export const DEVELOPMENT_SECRETS = {
  STRIPE_WEBHOOK_SECRET: 'whsec_sample_development_secret',
  QVARD_SECRET_KEY: 'qvard_sample_development_secret',
  // base64 of "sample-development-standard-secret"
  STANDARD_WEBHOOK_SECRET: 'whsec_c2FtcGxlLWRldmVsb3BtZW50LXN0YW5kYXJkLXNlY3JldA==',
  HMAC_WEBHOOK_SECRET: 'hmac_sample_development_secret',
  TBANK_PASSWORD: 'tbank_sample_development_password',
  SBER_CALLBACK_TOKEN: 'sber_sample_development_token',
  // 32 bytes, hex, as Adyen shows HMAC keys
  ADYEN_HMAC_KEY: '73616d706c652d646576656c6f706d656e742d6164792d686d61632d6b657921',
  PADDLE_WEBHOOK_SECRET: 'pdl_ntfset_sample_development_secret',
  YOOKASSA_SHOP_ID: '100500',
  YOOKASSA_SECRET_KEY: 'test_sample_development_secret_key',
  YOOMONEY_NOTIFICATION_SECRET: 'yoomoney_sample_development_secret',
  PAYPAL_WEBHOOK_ID: 'WH-SAMPLE-DEVELOPMENT-ID',
  SQUARE_SIGNATURE_KEY: 'square_sample_development_signature_key',
  // the demo merchant's, at /webhooks/merchants/demo-merchant; other merchants' are in its table
  DEMO_MERCHANT_WEBHOOK_SECRET: 'whsec_demo_merchant_development_secret',
} as const;

/** The name of a secret the shop reads from the environment. */
export type SecretName = keyof typeof DEVELOPMENT_SECRETS;

/** Settings that are not secrets and have a working default. */
export function setting(name: string, fallback: string): string {
  return process.env[name] || fallback;
}

/**
 * A secret from the environment, or the documented development one after `warn` was told so
 * loudly.
 */
export function secretOrDevelopment(name: SecretName, warn: (message: string) => void): string {
  const value = process.env[name];
  if (value) {
    return value;
  }
  warn(
    `!!! ${name} is not set: using the PUBLIC development secret. Set ${name} before taking real payments. !!!`,
  );
  return DEVELOPMENT_SECRETS[name];
}
