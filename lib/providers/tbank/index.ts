/**
 * T-Bank: what this folder gives the package. Each export names the entries that export it; the
 * definition, which none exports, goes to PROVIDER_DEFINITIONS. `npm run providers:catalog` lists
 * them in lib/providers/catalog/. The signer and fixtures: ./testing.ts.
 */

/** @entries root express */
export { tbankEndpoint } from './tbank.provider';
/** @entries root express providers */
export type { TBankEndpointOptions, TBankProviderOptions } from './tbank.provider';
/** @entries providers */
export { tbankToken } from './tbank-token';
/** @entries providers */
export { TBankStatusClient } from './tbank-status.client';
/** @entries root express providers */
export type { TBankStatusClientOptions } from './tbank-status.client';
export { tbankProvider } from './tbank.provider';
