/**
 * Mercado Pago: what this folder gives the package. Each export names the entries that export
 * it; the definition, which none exports, goes to PROVIDER_DEFINITIONS. `npm run
 * providers:catalog` lists them in lib/providers/catalog/. The signer and fixtures: ./testing.ts.
 */

/** @entries root express */
export { mercadoPagoEndpoint } from './mercado-pago.provider';
/** @entries root express providers */
export type {
  MercadoPagoEndpointOptions,
  MercadoPagoProviderOptions,
} from './mercado-pago.provider';
/** @entries providers */
export type { MercadoPagoNotification } from './mercado-pago.notification';
/** @entries providers */
export { MercadoPagoStatusClient } from './mercado-pago-status.client';
/** @entries root express providers */
export type { MercadoPagoStatusClientOptions } from './mercado-pago-status.client';
/** @entries providers */
export type { MercadoPagoPayment } from './mercado-pago-payment';
export { mercadoPagoProvider } from './mercado-pago.provider';
