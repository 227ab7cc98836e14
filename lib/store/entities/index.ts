import { WebhookEventEntity } from './webhook-event.entity';
import { WebhookHandlerRunEntity } from './webhook-handler-run.entity';

export { WebhookEventEntity, WebhookHandlerRunEntity };

/** Every entity the package stores; add them to `entities` when you do not use `autoLoadEntities`. */
export const webhookEntities = [WebhookEventEntity, WebhookHandlerRunEntity];
