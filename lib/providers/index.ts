/**
 * `nestjs-payment-webhooks/providers`: what a user needs about one provider beyond its endpoint
 * factory (the factories are in the root entry): each endpoint's option type, the budget of API
 * calls deliveries may make (`ApiCallBudgetOptions`), the payment-status clients, the PayPal
 * certificate resolver, the providers' published constants and native payload types, the
 * providers' retry horizons, and `ProviderStatusError`, which a status client throws when the
 * provider cannot say. The provider classes and the signature helpers they share stay private.
 */
export type {
  PaymentStatusClient,
  PaymentStatusQuery,
  ProviderPaymentStatus,
} from './payment-status-client.interface';
export type {
  EventLogPage,
  EventLogWindow,
  LoggedEvent,
  ProviderEventLog,
} from './event-log.interface';
export * from './catalog/providers-entry';
export { ProviderStatusError } from '../core/webhook-errors';
export type { ProviderStatusFailure } from '../core/webhook-errors';

export type { ApiCallBudgetOptions } from './provider-api-calls';
export { PROVIDER_RETRY_HORIZONS, MIN_DEDUP_DAYS } from './provider-retry-horizons';
export type { ProviderRetryHorizon } from './provider-retry-horizons';
export type { RetryHorizon } from './provider-descriptor.interface';
// NOTE: named by the endpoint options and the status clients' results above.
export type {
  BaseEndpointOptions,
  WebhookAcknowledgement,
  WebhookRecoverySchedule,
} from './webhook-provider.interface';
export type { JsonObject } from './parse-payload';
export type { PaymentEventType } from '../core/payment-event-types';
