/**
 * Sber: what this folder gives the package. Each export names the entries that export it; the
 * definition, which none exports, goes to PROVIDER_DEFINITIONS. `npm run providers:catalog` lists
 * them in lib/providers/catalog/. The signer and fixtures: ./testing.ts.
 */

/** @entries root express */
export { sberEndpoint } from './sber.provider';
/** @entries root express providers */
export type { SberEndpointOptions, SberProviderOptions } from './sber.provider';
/** @entries providers */
export { SberStatusClient } from './sber-status.client';
/** @entries root express providers */
export type { SberStatusClientBaseOptions, SberStatusClientOptions } from './sber-status.client';
export { sberProvider } from './sber.provider';
