/**
 * The endpoint factories with their option types, and the contract a custom provider
 * implements: what the root entry exports from `providers/`. Other per-provider details (status
 * clients, constants, native payload types) are in `./index.ts`, the
 * `nestjs-payment-webhooks/providers` entry.
 */
export * from './catalog/root-entry';
export { defineEndpoint } from './define-endpoint';
export type { EndpointExtras } from './define-endpoint';
export type {
  InboundWebhook,
  NormalizedNotification,
  WebhookAcknowledgement,
  WebhookProvider,
  WebhookDeliveryMethod,
  BaseEndpointOptions,
  WebhookEndpoint,
  WebhookRecoverySchedule,
  SignedTransmission,
} from './webhook-provider.interface';
export type { SourceAllowlist } from '../core/source-allowlist';
export type {
  EventLogPage,
  EventLogWindow,
  LoggedEvent,
  ProviderEventLog,
} from './event-log.interface';
export type { ApiCallBudgetOptions } from './provider-api-calls';
export type {
  PaymentStatusClient,
  PaymentStatusQuery,
  ProviderPaymentStatus,
} from './payment-status-client.interface';
