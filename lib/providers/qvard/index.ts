/**
 * Qvard: what this folder gives the package. Each export names the entries that export it; the
 * definition, which none exports, goes to PROVIDER_DEFINITIONS. `npm run providers:catalog` lists
 * them in lib/providers/catalog/. The signer: ./testing.ts.
 */

/** @entries root express */
export { qvardEndpoint } from './qvard.provider';
/** @entries root express providers */
export type { QvardEndpointOptions, QvardProviderOptions } from './qvard.provider';
export { qvardProvider } from './qvard.provider';
