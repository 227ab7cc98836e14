export { WebhooksModule } from './webhooks.module';
export { WEBHOOKS_MODULE_OPTIONS } from './webhooks.module-definition';
export {
  WebhooksModuleOptions,
  WebhooksModuleExtras,
  WebhookDispatchOptions,
  WebhookRetryOptions,
} from './interfaces/webhooks-module-options.interface';
export { PaymentEvent, WebhookContext } from './interfaces/payment-event.interface';

export {
  OnPaymentEvent,
  OnPaymentEventOptions,
  PaymentEventPattern,
} from './dispatch/on-payment-event.decorator';
export { NonRetryableError } from './dispatch/non-retryable.error';
export { WebhookDispatcher } from './dispatch/webhook.dispatcher';

export {
  PAYMENT_EVENT_TYPES,
  PaymentEventType,
  isPaymentEventType,
} from './core/payment-event-types';
export {
  WebhookConfigurationError,
  WebhookPayloadError,
  WebhookVerificationError,
  WebhookRejectionReason,
} from './core/webhook-errors';

export * from './providers';

export { WebhookStore, NewWebhookEvent, RecordResult } from './store/webhook-store.interface';
export { WebhookEventStatus } from './store/webhook-event-status';
export { WebhookEventEntity, WebhookHandlerRunEntity, webhookEntities } from './store/entities';
export { webhooksMigrations, CreateWebhooksTables1764400000000 } from './store/migrations';
export { WebhookTransactions } from './store/webhook-transactions.service';

export {
  WebhookSignatureException,
  WebhookPayloadException,
  UnknownWebhookEndpointException,
  WebhookTooLargeException,
  WebhookStoreUnavailableException,
  RawBodyUnavailableException,
  WebhookSourceForbiddenException,
} from './ingress/webhook-ingress.exceptions';
