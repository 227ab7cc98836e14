/**
 * The endpoint factories and the contract a custom provider implements: what the root entry
 * exports from `providers/`. Per-provider details (option types, status clients, constants,
 * native payload types) are in `./index.ts`, the `nestjs-payment-webhooks/providers` entry.
 */
export { stripeEndpoint } from './stripe/stripe.provider';
export { standardWebhooksEndpoint } from './standard-webhooks/standard-webhooks.provider';
export { qvardEndpoint } from './qvard/qvard.provider';
export { hmacEndpoint } from './hmac/hmac.provider';
export { adyenEndpoint } from './adyen/adyen.provider';
export { yookassaEndpoint } from './yookassa/yookassa.provider';
export { tbankEndpoint } from './tbank/tbank.provider';
export { sberEndpoint } from './sber/sber.provider';
export { yoomoneyEndpoint } from './yoomoney/yoomoney.provider';
export { paypalEndpoint } from './paypal/paypal.provider';
export { paddleEndpoint } from './paddle/paddle.provider';
export { squareEndpoint } from './square/square.provider';
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
