/** Metadata key under which `@OnPaymentEvent` stores its registrations. */
export const ON_PAYMENT_EVENT_METADATA = 'nestjs-payment-webhooks:on_payment_event';

/** Token of the resolved (defaults merged, validated) module options. */
export const WEBHOOKS_RESOLVED_OPTIONS = Symbol('WEBHOOKS_RESOLVED_OPTIONS');

/** Route prefix when none is given. */
export const DEFAULT_WEBHOOKS_PATH = 'webhooks';

/** Token of the webhook controller's route prefix, as mounted (no leading or trailing slash). */
export const WEBHOOKS_ROUTE_PATH = Symbol('WEBHOOKS_ROUTE_PATH');

/** Metadata key under which `@PaymentWebhook()` stores the endpoint name of an app's route. */
export const PAYMENT_WEBHOOK_METADATA = 'nestjs-payment-webhooks:payment_webhook';

/** Token of the module's {@link WebhooksEngine}. */
export const WEBHOOKS_ENGINE = Symbol('WEBHOOKS_ENGINE');

/**
 * Token of the open `dispatch.transport` (null without one). With the BullMQ transport it is a
 * `BullmqWebhookTransport`, whose `process(job)` a `@nestjs/bullmq` `WorkerHost` calls.
 */
export const WEBHOOKS_TRANSPORT = Symbol('WEBHOOKS_TRANSPORT');
