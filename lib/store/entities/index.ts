import { WebhookEventEntity } from './webhook-event.entity';
import { WebhookHandlerRunEntity } from './webhook-handler-run.entity';

export { WebhookEventEntity, WebhookHandlerRunEntity };

/**
 * The entities of the inbox and the handler ledger; add them to `entities` when you do not use
 * `autoLoadEntities`. The idempotency tables have their own: `idempotencyEntities`.
 */
export const webhookEntities = [WebhookEventEntity, WebhookHandlerRunEntity];
