/**
 * `nestjs-payment-webhooks/providers`: what a user needs about one provider beyond its endpoint
 * factory (the factories are in the root entry): each endpoint's option type, the payment-status
 * clients, the PayPal certificate resolver, the providers' published constants and native
 * payload types, and the providers' retry horizons. The provider classes and the signature
 * helpers they share stay private.
 */
export type {
  PaymentStatusClient,
  PaymentStatusQuery,
  ProviderPaymentStatus,
} from './payment-status-client.interface';
export type { StripeEndpointOptions } from './stripe/stripe.provider';
export type { StandardWebhooksEndpointOptions } from './standard-webhooks/standard-webhooks.provider';
export type { QvardEndpointOptions } from './qvard/qvard.provider';
export type { HmacEndpointOptions, HmacSignatureEncoding } from './hmac/hmac.provider';
export { decodeAdyenHmacKey } from './adyen/adyen.provider';
export type {
  AdyenAmount,
  AdyenEndpointOptions,
  AdyenNotificationRequest,
  AdyenNotificationRequestItem,
} from './adyen/adyen.provider';
export { YOOKASSA_API_URL, YOOKASSA_IP_RANGES } from './yookassa/yookassa.provider';
export type {
  YooKassaEndpointOptions,
  YooKassaNotification,
  YooKassaNotificationObject,
} from './yookassa/yookassa.provider';
export type { TBankEndpointOptions } from './tbank/tbank.provider';
export { tbankToken } from './tbank/tbank-token';
export type { SberEndpointOptions } from './sber/sber.provider';
export type { YooMoneyEndpointOptions } from './yoomoney/yoomoney.provider';
export { PAYPAL_DEFAULT_TOLERANCE_SECONDS } from './paypal/paypal.provider';
export type { PayPalEndpointOptions } from './paypal/paypal.provider';
export { createPayPalCertificateResolver } from './paypal/paypal-certificate.resolver';
export type {
  PayPalCertificateResolver,
  PayPalCertificateResolverOptions,
} from './paypal/paypal-certificate.resolver';
export type { PaddleEndpointOptions } from './paddle/paddle.provider';
export type { SquareEndpointOptions } from './square/square.provider';

export { StripeStatusClient } from './stripe/stripe-status.client';
export type { StripeStatusClientOptions } from './stripe/stripe-status.client';
export { YooKassaStatusClient } from './yookassa/yookassa-status.client';
export type { YooKassaStatusClientOptions } from './yookassa/yookassa-status.client';
export { TBankStatusClient } from './tbank/tbank-status.client';
export type { TBankStatusClientOptions } from './tbank/tbank-status.client';
export { SberStatusClient } from './sber/sber-status.client';
export type { SberStatusClientOptions } from './sber/sber-status.client';
export { PayPalStatusClient } from './paypal/paypal-status.client';
export type { PayPalStatusClientOptions } from './paypal/paypal-status.client';

export { PROVIDER_RETRY_HORIZONS, MIN_DEDUP_DAYS } from './provider-retry-horizons';
export type { ProviderRetryHorizon } from './provider-retry-horizons';
