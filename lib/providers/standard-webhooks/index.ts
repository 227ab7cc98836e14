/**
 * Standard Webhooks: what this folder gives the package. Each export names the entries that export
 * it; the descriptor, which none exports, goes to PROVIDER_DESCRIPTORS. `npm run providers:catalog`
 * lists them in lib/providers/catalog/. The signer: ./testing.ts.
 */

/** @entries root express */
export { standardWebhooksEndpoint } from './standard-webhooks.provider';
/** @entries root express providers */
export type {
  StandardWebhooksEndpointOptions,
  StandardWebhooksProviderOptions,
} from './standard-webhooks.provider';
export { standardWebhooksDescriptor } from './standard-webhooks.descriptor';
