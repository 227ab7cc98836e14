import { WebhookEventEntity } from './webhook-event.entity';
import { WebhookHandlerRunEntity } from './webhook-handler-run.entity';
import { IdempotencyKeyEntity } from '../../idempotency/entities/idempotency-key.entity';
import { IdempotentCallEntity } from '../../idempotency/entities/idempotent-call.entity';

export { WebhookEventEntity, WebhookHandlerRunEntity };
export { IdempotencyKeyEntity, IdempotentCallEntity };

/** Every entity the package stores; add them to `entities` when you do not use `autoLoadEntities`. */
export const webhookEntities = [
  WebhookEventEntity,
  WebhookHandlerRunEntity,
  IdempotencyKeyEntity,
  IdempotentCallEntity,
];
