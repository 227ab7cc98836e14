/**
 * Razorpay: what this folder gives the package. Each export names the entries that export it;
 * the definition, which none exports, goes to PROVIDER_DEFINITIONS. `npm run providers:catalog`
 * lists them in lib/providers/catalog/. The signer and fixtures: ./testing.ts.
 */

/** @entries root express */
export { razorpayEndpoint } from './razorpay.provider';
/** @entries root express providers */
export type { RazorpayEndpointOptions, RazorpayProviderOptions } from './razorpay.provider';
/** @entries providers */
export { RazorpayStatusClient } from './razorpay-status.client';
/** @entries root express providers */
export type { RazorpayStatusClientOptions } from './razorpay-status.client';
export { razorpayProvider } from './razorpay.provider';
