/**
 * Standard Webhooks: what this folder gives the package. Each export names the entries that export
 * it; the definition, which none exports, goes to PROVIDER_DEFINITIONS. `npm run providers:catalog`
 * lists them in lib/providers/catalog/. The signer: ./testing.ts.
 */

/** @entries root express */
export { standardWebhooksEndpoint } from './standard-webhooks.provider';
/** @entries root express providers */
export type {
  StandardWebhooksEndpointOptions,
  StandardWebhooksProviderOptions,
} from './standard-webhooks.provider';
export { standardWebhooksProvider } from './standard-webhooks.provider';
