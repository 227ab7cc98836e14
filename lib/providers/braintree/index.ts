/**
 * Braintree: what this folder gives the package. Each export names the entries that export it;
 * the definition, which none exports, goes to PROVIDER_DEFINITIONS. `npm run providers:catalog`
 * lists them in lib/providers/catalog/. The signer and fixtures: ./testing.ts.
 */

/** @entries root express */
export { braintreeEndpoint } from './braintree.provider';
/** @entries root express providers */
export type { BraintreeEndpointOptions, BraintreeProviderOptions } from './braintree.provider';
/** @entries root express providers */
export type { BraintreeApiKey } from './braintree-signature';
/** @entries providers */
export { BraintreeStatusClient } from './braintree-status.client';
/** @entries root express providers */
export type { BraintreeStatusClientOptions } from './braintree-status.client';
export { braintreeProvider } from './braintree.provider';
