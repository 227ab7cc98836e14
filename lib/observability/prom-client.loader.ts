import { WebhookConfigurationError } from '../core/webhook-errors';
import { PROM_CLIENT_MISSING } from './observability.messages';

/** The `prom-client` module. */
export type PromClient = typeof import('prom-client');

/**
 * Loads `prom-client`, an optional peer dependency, when metrics are turned on.
 * @throws WebhookConfigurationError naming `npm i prom-client` when it is not installed.
 */
export function loadPromClient(
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  load: (id: string) => unknown = (id) => require(id),
): PromClient {
  try {
    return load('prom-client') as PromClient;
  } catch (error) {
    const { code, message } = error as NodeJS.ErrnoException;
    // NOTE: only prom-client itself missing; a module missing inside it is a broken install.
    if (code === 'MODULE_NOT_FOUND' && message.split('\n')[0].includes("'prom-client'")) {
      throw new WebhookConfigurationError(PROM_CLIENT_MISSING);
    }
    throw error;
  }
}
