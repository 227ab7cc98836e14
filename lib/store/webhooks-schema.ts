import { WebhookEventEntity } from './entities/webhook-event.entity';
import { WebhookHandlerRunEntity } from './entities/webhook-handler-run.entity';
import { TableShape } from './schema-check';

/** The inbox and the handler ledger, as `CreateWebhooksTables` and `AddEventOutcomes` make them. */
export const WEBHOOK_TABLES: readonly TableShape[] = [
  {
    table: 'webhook_events',
    entity: WebhookEventEntity,
    indexes: [
      'uq_webhook_events_endpoint_event',
      'ix_webhook_events_due',
      'ix_webhook_events_lease',
      'ix_webhook_events_status_received',
      'ix_webhook_events_payment_ref',
    ],
    checks: 1,
    references: [],
  },
  {
    table: 'webhook_handler_runs',
    entity: WebhookHandlerRunEntity,
    indexes: ['uq_webhook_handler_runs_event_handler'],
    checks: 0,
    references: ['webhook_events'],
  },
];
