export { stripeEndpoint, StripeWebhookProvider } from './stripe/stripe.provider';
export type { StripeEndpointOptions, StripeProviderOptions } from './stripe/stripe.provider';
export {
  standardWebhooksEndpoint,
  StandardWebhooksProvider,
} from './standard-webhooks/standard-webhooks.provider';
export type {
  StandardWebhooksEndpointOptions,
  StandardWebhooksProviderOptions,
} from './standard-webhooks/standard-webhooks.provider';
export { qvardEndpoint, QvardWebhookProvider } from './qvard/qvard.provider';
export type { QvardEndpointOptions, QvardProviderOptions } from './qvard/qvard.provider';
export { hmacEndpoint, HmacWebhookProvider } from './hmac/hmac.provider';
export type {
  HmacEndpointOptions,
  HmacProviderOptions,
  HmacSignatureEncoding,
} from './hmac/hmac.provider';
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
} from './adyen/adyen.provider';
export type {
  AdyenAmount,
  AdyenEndpointOptions,
  AdyenNotificationRequest,
  AdyenNotificationRequestItem,
  AdyenProviderOptions,
} from './adyen/adyen.provider';
export {
  yookassaEndpoint,
  YooKassaWebhookProvider,
  YOOKASSA_API_URL,
  YOOKASSA_IP_RANGES,
} from './yookassa/yookassa.provider';
export type {
  YooKassaEndpointOptions,
  YooKassaNotification,
  YooKassaNotificationObject,
  YooKassaProviderOptions,
} from './yookassa/yookassa.provider';
export { tbankEndpoint, TBankWebhookProvider } from './tbank/tbank.provider';
export type { TBankEndpointOptions, TBankProviderOptions } from './tbank/tbank.provider';
export { sberEndpoint, SberWebhookProvider } from './sber/sber.provider';
export type { SberEndpointOptions, SberProviderOptions } from './sber/sber.provider';
export { yoomoneyEndpoint, YooMoneyWebhookProvider } from './yoomoney/yoomoney.provider';
export type {
  YooMoneyEndpointOptions,
  YooMoneyProviderOptions,
} from './yoomoney/yoomoney.provider';
export { StripeStatusClient } from './stripe/stripe-status.client';
export type { StripeStatusClientOptions } from './stripe/stripe-status.client';
export { YooKassaStatusClient } from './yookassa/yookassa-status.client';
export type { YooKassaStatusClientOptions } from './yookassa/yookassa-status.client';
export { TBankStatusClient } from './tbank/tbank-status.client';
export type { TBankStatusClientOptions } from './tbank/tbank-status.client';
export { SberStatusClient } from './sber/sber-status.client';
export type { SberStatusClientOptions } from './sber/sber-status.client';
export { tbankToken } from './tbank/tbank-token';
export {
  paypalEndpoint,
  PayPalWebhookProvider,
  PAYPAL_DEFAULT_TOLERANCE_SECONDS,
} from './paypal/paypal.provider';
export type { PayPalEndpointOptions, PayPalProviderOptions } from './paypal/paypal.provider';
export { createPayPalCertificateResolver } from './paypal/paypal-certificate.resolver';
export type {
  PayPalCertificateResolver,
  PayPalCertificateResolverOptions,
} from './paypal/paypal-certificate.resolver';
export { paddleEndpoint, PaddleWebhookProvider } from './paddle/paddle.provider';
export type { PaddleEndpointOptions, PaddleProviderOptions } from './paddle/paddle.provider';
export { squareEndpoint, SquareWebhookProvider } from './square/square.provider';
export type { SquareEndpointOptions, SquareProviderOptions } from './square/square.provider';
