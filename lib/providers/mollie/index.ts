/**
 * Mollie: what this folder gives the package. Each export names the entries that export it; the
 * descriptor, which none exports, goes to PROVIDER_DESCRIPTORS. `npm run providers:catalog` lists
 * them in lib/providers/catalog/. The signer and fixtures: ./testing.ts.
 */

/** @entries root express */
export { mollieEndpoint } from './mollie.provider';
/** @entries express providers */
export type { MollieEndpointOptions } from './mollie.provider';
/** @entries providers */
export { MollieStatusClient } from './mollie-status.client';
/** @entries providers */
export type { MollieStatusClientOptions } from './mollie-status.client';
export { mollieDescriptor } from './mollie.descriptor';
