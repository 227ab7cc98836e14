/**
 * PayPal: what this folder gives the package. Each export names the entries that export it; the
 * definition, which none exports, goes to PROVIDER_DEFINITIONS. `npm run providers:catalog` lists
 * them in lib/providers/catalog/. The signer, fixtures and test certificate: ./testing.ts.
 */

/** @entries root express */
export { paypalEndpoint } from './paypal.provider';
/** @entries root express providers */
export type { PayPalEndpointOptions, PayPalProviderOptions } from './paypal.provider';
/** @entries providers */
export { PAYPAL_DEFAULT_TOLERANCE_SECONDS } from './paypal.provider';
/** @entries providers */
export { createPayPalCertificateResolver } from './paypal-certificate.resolver';
/** @entries root express providers */
export type {
  PayPalCertificateResolver,
  PayPalCertificateResolverOptions,
} from './paypal-certificate.resolver';
/** @entries providers */
export { PayPalStatusClient } from './paypal-status.client';
/** @entries root express providers */
export type { PayPalStatusClientOptions } from './paypal-status.client';
export { paypalProvider } from './paypal.provider';
