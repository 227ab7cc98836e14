/**
 * The endpoint factories and the contract a custom provider implements: what the root entry
 * exports from `providers/`. Per-provider details (option types, status clients, constants,
 * native payload types) are in `./index.ts`, the `nestjs-payment-webhooks/providers` entry.
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
} from './webhook-provider.interface';
export type {
  PaymentStatusClient,
  PaymentStatusQuery,
  ProviderPaymentStatus,
} from './payment-status-client.interface';
