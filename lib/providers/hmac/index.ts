/**
 * Generic HMAC: what this folder gives the package. Each export names the entries that export it;
 * the definition, which none exports, goes to PROVIDER_DEFINITIONS. `npm run providers:catalog`
 * lists them in lib/providers/catalog/. The signer: ./testing.ts.
 */

/** @entries root express */
export { hmacEndpoint } from './hmac.provider';
/** @entries root express providers */
export type {
  HmacEndpointOptions,
  HmacProviderOptions,
  HmacSignatureEncoding,
} from './hmac.provider';
export { hmacProvider } from './hmac.provider';
