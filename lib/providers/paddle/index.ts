/**
 * Paddle Billing: what this folder gives the package. Each export names the entries that export it;
 * the definition, which none exports, goes to PROVIDER_DEFINITIONS. `npm run providers:catalog`
 * lists them in lib/providers/catalog/. The signer and fixtures: ./testing.ts.
 */

/** @entries root express */
export { paddleEndpoint } from './paddle.provider';
/** @entries root express providers */
export type { PaddleEndpointOptions, PaddleProviderOptions } from './paddle.provider';
/** @entries root express providers */
export type { PaddleApiOptions } from './paddle-event-log';
export { paddleProvider } from './paddle.provider';
