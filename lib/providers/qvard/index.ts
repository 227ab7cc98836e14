/**
 * Qvard: what this folder gives the package. Each export names the entries that export it; the
 * descriptor, which none exports, goes to PROVIDER_DESCRIPTORS. `npm run providers:catalog` lists
 * them in lib/providers/catalog/. The signer: ./testing.ts.
 */

/** @entries root express */
export { qvardEndpoint } from './qvard.provider';
/** @entries root express providers */
export type { QvardEndpointOptions, QvardProviderOptions } from './qvard.provider';
export { qvardDescriptor } from './qvard.descriptor';
