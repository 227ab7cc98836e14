/**
 * Stripe: what this folder gives the package. Each export names the entries that export it; the
 * definition, which none exports, goes to PROVIDER_DEFINITIONS. `npm run providers:catalog` lists
 * them in lib/providers/catalog/. The signer: ./testing.ts.
 */

/** @entries root express */
export { stripeEndpoint } from './stripe.provider';
/** @entries root express providers */
export type { StripeEndpointOptions, StripeProviderOptions } from './stripe.provider';
/** @entries providers */
export { StripeStatusClient } from './stripe-status.client';
/** @entries root express providers */
export type { StripeStatusClientOptions } from './stripe-status.client';
/** @entries providers */
export { StripeEventLog } from './stripe-event-log';
/** @entries root express providers */
export type { StripePayloadStyle } from './stripe-event-log';
export { stripeProvider } from './stripe.provider';
