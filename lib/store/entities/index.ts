import { WebhookEventEntity } from './webhook-event.entity';
import { WebhookHandlerRunEntity } from './webhook-handler-run.entity';
import { WebhookTransmissionEntity } from './webhook-transmission.entity';

export { WebhookEventEntity, WebhookHandlerRunEntity, WebhookTransmissionEntity };

/**
 * The entities of the inbox, the handler ledger and the signed transmissions seen; add them to `entities` when you do not use
 * `autoLoadEntities`. The idempotency tables have their own: `idempotencyEntities`.
 */
export const webhookEntities = [
  WebhookEventEntity,
  WebhookHandlerRunEntity,
  WebhookTransmissionEntity,
];
