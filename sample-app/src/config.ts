import { Logger } from '@nestjs/common';

/** Development secrets, used only when the environment sets none. Never use them in production. */
export const DEVELOPMENT_SECRETS = {
  STRIPE_WEBHOOK_SECRET: 'whsec_sample_development_secret',
  QVARD_SECRET_KEY: 'qvard_sample_development_secret',
  // base64 of "sample-development-standard-secret"
  STANDARD_WEBHOOK_SECRET: 'whsec_c2FtcGxlLWRldmVsb3BtZW50LXN0YW5kYXJkLXNlY3JldA==',
  HMAC_WEBHOOK_SECRET: 'hmac_sample_development_secret',
} as const;

const logger = new Logger('SampleShop');

/** A secret from the environment, or the documented development one with a loud warning. */
export function secret(name: keyof typeof DEVELOPMENT_SECRETS): string {
  const value = process.env[name];
  if (value) {
    return value;
  }
  logger.warn(
    `!!! ${name} is not set: using the PUBLIC development secret. Set ${name} before taking real payments. !!!`,
  );
  return DEVELOPMENT_SECRETS[name];
}
