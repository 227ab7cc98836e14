/**
 * Robokassa: what this folder gives the package. Each export names the entries that export it;
 * the definition, which none exports, goes to PROVIDER_DEFINITIONS. `npm run providers:catalog`
 * lists them in lib/providers/catalog/. The signer and fixtures: ./testing.ts.
 */

/** @entries root express */
export { robokassaEndpoint } from './robokassa.provider';
/** @entries root express providers */
export type {
  RobokassaEndpointOptions,
  RobokassaProviderOptions,
  RobokassaHashAlgorithm,
} from './robokassa.provider';
export { robokassaProvider } from './robokassa.provider';
