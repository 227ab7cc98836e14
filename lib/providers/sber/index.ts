/**
 * Sber: what this folder gives the package. Each export names the entries that export it; the
 * descriptor, which none exports, goes to PROVIDER_DESCRIPTORS. `npm run providers:catalog` lists
 * them in lib/providers/catalog/. The signer and fixtures: ./testing.ts.
 */

/** @entries root express */
export { sberEndpoint } from './sber.provider';
/** @entries express providers */
export type { SberEndpointOptions } from './sber.provider';
/** @entries providers */
export { SberStatusClient } from './sber-status.client';
/** @entries providers */
export type { SberStatusClientOptions } from './sber-status.client';
export { sberDescriptor } from './sber.descriptor';
