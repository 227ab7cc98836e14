export { stripeEndpoint, StripeWebhookProvider } from './stripe.provider';
export type { StripeEndpointOptions, StripeProviderOptions } from './stripe.provider';
export { standardWebhooksEndpoint, StandardWebhooksProvider } from './standard-webhooks.provider';
export type {
  StandardWebhooksEndpointOptions,
  StandardWebhooksProviderOptions,
} from './standard-webhooks.provider';
export { qvardEndpoint, QvardWebhookProvider } from './qvard.provider';
export type { QvardEndpointOptions, QvardProviderOptions } from './qvard.provider';
export { hmacEndpoint, HmacWebhookProvider } from './hmac.provider';
export type {
  HmacEndpointOptions,
  HmacProviderOptions,
  HmacSignatureEncoding,
} from './hmac.provider';
export { defineEndpoint } from './define-endpoint';
export type { EndpointExtras } from './define-endpoint';
export { notificationsOf } from './notifications';
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
