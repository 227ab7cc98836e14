/**
 * Paystack: what this folder gives the package. Each export names the entries that export it;
 * the definition, which none exports, goes to PROVIDER_DEFINITIONS. `npm run providers:catalog`
 * lists them in lib/providers/catalog/. The signer and fixtures: ./testing.ts.
 */

/** @entries root express */
export { paystackEndpoint } from './paystack.provider';
/** @entries providers */
export { PAYSTACK_IP_ADDRESSES } from './paystack.provider';
/** @entries root express providers */
export type { PaystackEndpointOptions, PaystackProviderOptions } from './paystack.provider';
export { paystackProvider } from './paystack.provider';
