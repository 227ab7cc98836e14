/**
 * Adyen: what this folder gives the package. Each export names the entries that export it; the
 * definition, which none exports, goes to PROVIDER_DEFINITIONS. `npm run providers:catalog` lists
 * them in lib/providers/catalog/. The signer and fixtures: ./testing.ts.
 */

/** @entries root express */
export { adyenEndpoint } from './adyen.provider';
/** @entries root express providers */
export type { AdyenEndpointOptions, AdyenProviderOptions } from './adyen.provider';
/** @entries providers */
export { decodeAdyenHmacKey } from './adyen.provider';
/** @entries providers */
export type {
  AdyenAmount,
  AdyenNotificationRequest,
  AdyenNotificationRequestItem,
} from './adyen.provider';
export { adyenProvider } from './adyen.provider';
