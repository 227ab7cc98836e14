import { loadOptionalPeer } from '../core/optional-peer';
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
  return loadOptionalPeer('prom-client', PROM_CLIENT_MISSING, load);
}
