import { WebhookEventEntity } from './entities/webhook-event.entity';
import { WebhookHandlerRunEntity } from './entities/webhook-handler-run.entity';
import { WebhookHistoryEntity } from './entities/webhook-history.entity';
import { WebhookPauseEntity } from './entities/webhook-pause.entity';
import { WebhookReplayEntity } from './entities/webhook-replay.entity';
import { WebhookTransmissionEntity } from './entities/webhook-transmission.entity';
import { WebhookWorkEntity } from './entities/webhook-work.entity';
import { TableShape } from './schema-check';

/**
 * The inbox, its work rows, the handler ledger, the transmissions seen, the events' history,
 * the pauses of dispatch and the replays in the background, as `CreateWebhooksTables`, `AddEventOutcomes`,
 * `AddWebhookTransmissions`, `SplitEventWork`, `AddEventTenants`, `AddEventHistory` and
 * `AddEventCopies` make them.
 */
export const WEBHOOK_TABLES: readonly TableShape[] = [
  {
    table: 'webhook_events',
    entity: WebhookEventEntity,
    indexes: [
      'uq_webhook_events_endpoint_tenant_event',
      'uq_webhook_events_tenant_same_event',
      'ix_webhook_events_received',
      'ix_webhook_events_payment_ref',
    ],
    checks: 1,
    references: [],
  },
  {
    table: 'webhook_work',
    entity: WebhookWorkEntity,
    indexes: ['ix_webhook_work_due', 'ix_webhook_work_lease'],
    checks: 1,
    references: [],
  },
  {
    table: 'webhook_handler_runs',
    entity: WebhookHandlerRunEntity,
    indexes: [],
    checks: 0,
    references: [],
  },
  {
    table: 'webhook_transmissions',
    entity: WebhookTransmissionEntity,
    indexes: ['ix_webhook_transmissions_received'],
    checks: 0,
    references: [],
  },
  {
    table: 'webhook_history',
    entity: WebhookHistoryEntity,
    indexes: ['ix_webhook_history_event'],
    checks: 1,
    references: [],
  },
  {
    table: 'webhook_pauses',
    entity: WebhookPauseEntity,
    indexes: [],
    checks: 0,
    references: [],
  },
  {
    table: 'webhook_replays',
    entity: WebhookReplayEntity,
    indexes: ['ix_webhook_replays_endpoint'],
    checks: 2,
    references: [],
  },
];
