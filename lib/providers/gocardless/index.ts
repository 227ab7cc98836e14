/**
 * GoCardless: what this folder gives the package. Each export names the entries that export it;
 * the definition, which none exports, goes to PROVIDER_DEFINITIONS. `npm run providers:catalog`
 * lists them in lib/providers/catalog/. The signer and fixtures: ./testing.ts.
 */

/** @entries root express */
export { goCardlessEndpoint } from './gocardless.provider';
/** @entries root express providers */
export type { GoCardlessEndpointOptions, GoCardlessProviderOptions } from './gocardless.provider';
/** @entries root express providers */
export type { GoCardlessApiOptions } from './gocardless-event-log';
export { goCardlessProvider } from './gocardless.provider';
