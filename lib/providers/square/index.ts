/**
 * Square: what this folder gives the package. Each export names the entries that export it; the
 * definition, which none exports, goes to PROVIDER_DEFINITIONS. `npm run providers:catalog` lists
 * them in lib/providers/catalog/. The signer and fixtures: ./testing.ts.
 */

/** @entries root express */
export { squareEndpoint } from './square.provider';
/** @entries root express providers */
export type { SquareEndpointOptions, SquareProviderOptions } from './square.provider';
/** @entries root express providers */
export type { SquareApiOptions } from './square-event-log';
export { squareProvider } from './square.provider';
