/**
 * Mollie: what this folder gives the package. Each export names the entries that export it; the
 * definition, which none exports, goes to PROVIDER_DEFINITIONS. `npm run providers:catalog` lists
 * them in lib/providers/catalog/. The signer and fixtures: ./testing.ts.
 */

/** @entries root express */
export { mollieEndpoint } from './mollie.provider';
/** @entries root express providers */
export type { MollieEndpointOptions, MollieProviderOptions } from './mollie.provider';
/** @entries providers */
export { MollieStatusClient } from './mollie-status.client';
/** @entries root express providers */
export type { MollieStatusClientOptions } from './mollie-status.client';
/** @entries providers */
export type { MolliePayment } from './mollie-status.client';
export { mollieProvider } from './mollie.provider';
