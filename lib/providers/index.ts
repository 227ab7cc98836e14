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
export {
  adyenEndpoint,
  AdyenWebhookProvider,
  adyenSigningString,
  decodeAdyenHmacKey,
} from './adyen.provider';
export type {
  AdyenAmount,
  AdyenEndpointOptions,
  AdyenNotificationRequest,
  AdyenNotificationRequestItem,
  AdyenProviderOptions,
} from './adyen.provider';
export {
  yookassaEndpoint,
  YooKassaWebhookProvider,
  YOOKASSA_API_URL,
  YOOKASSA_IP_RANGES,
} from './yookassa.provider';
export type {
  YooKassaEndpointOptions,
  YooKassaNotification,
  YooKassaNotificationObject,
  YooKassaProviderOptions,
} from './yookassa.provider';
export { tbankEndpoint, TBankWebhookProvider } from './tbank.provider';
export type { TBankEndpointOptions, TBankProviderOptions } from './tbank.provider';
export { sberEndpoint, SberWebhookProvider } from './sber.provider';
export type { SberEndpointOptions, SberProviderOptions } from './sber.provider';
export { yoomoneyEndpoint, YooMoneyWebhookProvider } from './yoomoney.provider';
export type { YooMoneyEndpointOptions, YooMoneyProviderOptions } from './yoomoney.provider';
export { StripeStatusClient } from './clients/stripe-status.client';
export type { StripeStatusClientOptions } from './clients/stripe-status.client';
export { YooKassaStatusClient } from './clients/yookassa-status.client';
export type { YooKassaStatusClientOptions } from './clients/yookassa-status.client';
export { TBankStatusClient } from './clients/tbank-status.client';
export type { TBankStatusClientOptions } from './clients/tbank-status.client';
export { SberStatusClient } from './clients/sber-status.client';
export type { SberStatusClientOptions } from './clients/sber-status.client';
export { tbankToken } from './clients/tbank-token';
export {
  paypalEndpoint,
  PayPalWebhookProvider,
  PAYPAL_DEFAULT_TOLERANCE_SECONDS,
} from './paypal.provider';
export type { PayPalEndpointOptions, PayPalProviderOptions } from './paypal.provider';
export { createPayPalCertificateResolver } from './paypal-certificate.resolver';
export type {
  PayPalCertificateResolver,
  PayPalCertificateResolverOptions,
} from './paypal-certificate.resolver';
export { paddleEndpoint, PaddleWebhookProvider } from './paddle.provider';
export type { PaddleEndpointOptions, PaddleProviderOptions } from './paddle.provider';
export { squareEndpoint, SquareWebhookProvider } from './square.provider';
export type { SquareEndpointOptions, SquareProviderOptions } from './square.provider';
