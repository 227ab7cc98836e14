/**
 * YooKassa: what this folder gives the package. Each export names the entries that export it; the
 * definition, which none exports, goes to PROVIDER_DEFINITIONS. `npm run providers:catalog` lists
 * them in lib/providers/catalog/. The signer and fixtures: ./testing.ts.
 */

/** @entries root express */
export { yookassaEndpoint } from './yookassa.provider';
/** @entries providers */
export { YOOKASSA_API_URL, YOOKASSA_IP_RANGES } from './yookassa.provider';
/** @entries root express providers */
export type { YooKassaEndpointOptions, YooKassaProviderOptions } from './yookassa.provider';
/** @entries providers */
export type { YooKassaNotification, YooKassaNotificationObject } from './yookassa.provider';
/** @entries providers */
export { YooKassaStatusClient } from './yookassa-status.client';
/** @entries root express providers */
export type { YooKassaStatusClientOptions } from './yookassa-status.client';
export { yookassaProvider } from './yookassa.provider';
