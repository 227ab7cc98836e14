import { Logger } from '@nestjs/common';
import { SecretName, secretOrDevelopment } from './shop-settings';

export { DEVELOPMENT_SECRETS, setting } from './shop-settings';

const logger = new Logger('SampleShop');

/** A secret from the environment, or the documented development one with a loud warning. */
export function secret(name: SecretName): string {
  return secretOrDevelopment(name, (message) => logger.warn(message));
}
