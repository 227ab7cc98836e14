import { WebhookEventEntity } from './webhook-event.entity';
import { WebhookHandlerRunEntity } from './webhook-handler-run.entity';
import { WebhookTransmissionEntity } from './webhook-transmission.entity';
import { WebhookWorkEntity } from './webhook-work.entity';

export {
  WebhookEventEntity,
  WebhookHandlerRunEntity,
  WebhookTransmissionEntity,
  WebhookWorkEntity,
};

/**
 * The entities of the inbox, its work rows, the handler ledger and the signed transmissions seen; add them to `entities` when you do not use
 * `autoLoadEntities`. The idempotency tables have their own: `idempotencyEntities`.
 */
export const webhookEntities = [
  WebhookEventEntity,
  WebhookWorkEntity,
  WebhookHandlerRunEntity,
  WebhookTransmissionEntity,
];
