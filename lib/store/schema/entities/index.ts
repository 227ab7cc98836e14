import { WebhookEventEntity } from './webhook-event.entity';
import { WebhookHandlerRunEntity } from './webhook-handler-run.entity';
import { WebhookHistoryEntity } from './webhook-history.entity';
import { WebhookPauseEntity } from './webhook-pause.entity';
import { WebhookReplayEntity } from './webhook-replay.entity';
import { WebhookTransmissionEntity } from './webhook-transmission.entity';
import { WebhookWorkEntity } from './webhook-work.entity';

export {
  WebhookEventEntity,
  WebhookHandlerRunEntity,
  WebhookHistoryEntity,
  WebhookPauseEntity,
  WebhookReplayEntity,
  WebhookTransmissionEntity,
  WebhookWorkEntity,
};

/**
 * One of the classes in `webhookEntities`, which TypeORM's `entities` takes. An app never names
 * the classes themselves (they are not exported), only the list.
 */
export interface WebhookEntityClass {
  new (): object;
}

/**
 * The entities of the inbox, its work rows, the handler ledger, the signed transmissions seen, the events' history, the pauses of dispatch and the replays in the background; add them to `entities` when you do not use
 * `autoLoadEntities`. The idempotency tables have their own: `idempotencyEntities`.
 */
export const webhookEntities: WebhookEntityClass[] = [
  WebhookEventEntity,
  WebhookWorkEntity,
  WebhookHandlerRunEntity,
  WebhookTransmissionEntity,
  WebhookHistoryEntity,
  WebhookPauseEntity,
  WebhookReplayEntity,
];
