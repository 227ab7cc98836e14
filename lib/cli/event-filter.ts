import { Brackets } from 'typeorm';
import type { WebhookEventFilter } from '../admin/webhook-admin.service';
import { WebhookEventEntity } from '../store/entities/webhook-event.entity';
import { WebhookEventStatus } from '../store/webhook-event-status';
import { WebhookStore } from '../store/webhook-store.interface';
import { OptionSpecs, ParsedCommand, parseStatuses, parseTime, stringOption } from './arguments';

/** Every status an event can have. */
export const ALL_STATUSES: readonly WebhookEventStatus[] = [
  'pending',
  'processing',
  'retrying',
  'processed',
  'ignored',
  'dead',
];

/** The filter options `events list` and `events replay` share. */
export const FILTER_OPTIONS: OptionSpecs = {
  endpoint: { type: 'string' },
  status: { type: 'string' },
  type: { type: 'string' },
  payment: { type: 'string' },
  merchant: { type: 'string' },
  since: { type: 'string' },
  until: { type: 'string' },
};

/** The filter options as the help lists them. */
export const FILTER_HELP = `  --endpoint <name>      endpoint name
  --type <type>          event type, e.g. payment.succeeded or stripe:charge.dispute.created
  --payment <ref>        the provider's payment id
  --merchant <ref>       the application's order id
  --since <time>         received at or after: an age (30d, 12h, 15m) or an ISO 8601 time
  --until <time>         received before: an age or an ISO 8601 time`;

/**
 * The event filter given on the command line.
 * @param statuses the statuses `--status` may name.
 * @throws CliUsageError on an invalid time or status.
 */
export function eventFilter(
  command: string,
  parsed: ParsedCommand,
  now: Date,
  statuses: readonly WebhookEventStatus[],
  defaultStatuses?: readonly WebhookEventStatus[],
): WebhookEventFilter {
  const status = stringOption(parsed, 'status');
  const since = stringOption(parsed, 'since');
  const until = stringOption(parsed, 'until');
  return {
    endpoint: stringOption(parsed, 'endpoint'),
    status:
      status === undefined ? defaultStatuses : parseStatuses(command, '--status', status, statuses),
    type: stringOption(parsed, 'type'),
    paymentRef: stringOption(parsed, 'payment'),
    merchantRef: stringOption(parsed, 'merchant'),
    since: since === undefined ? undefined : parseTime(command, '--since', since, now),
    until: until === undefined ? undefined : parseTime(command, '--until', until, now),
  };
}

/** How many stored events match `filter` (the same conditions `WebhookAdmin` applies). */
export function countEvents(store: WebhookStore, filter: WebhookEventFilter): Promise<number> {
  return store.transaction((manager) => {
    const query = manager.createQueryBuilder(WebhookEventEntity, 'e').where(
      new Brackets((where) => {
        where.where('1 = 1');
        if (filter.endpoint !== undefined) {
          where.andWhere('e.endpoint = :endpoint', { endpoint: filter.endpoint });
        }
        if (filter.status !== undefined) {
          const statuses = typeof filter.status === 'string' ? [filter.status] : [...filter.status];
          where.andWhere('e.status IN (:...statuses)', { statuses });
        }
        if (filter.type !== undefined) {
          where.andWhere('e.type = :type', { type: filter.type });
        }
        if (filter.paymentRef !== undefined) {
          where.andWhere('e.payment_ref = :paymentRef', { paymentRef: filter.paymentRef });
        }
        if (filter.merchantRef !== undefined) {
          where.andWhere('e.merchant_ref = :merchantRef', { merchantRef: filter.merchantRef });
        }
        if (filter.since !== undefined) {
          where.andWhere('e.received_at >= :since', { since: filter.since });
        }
        if (filter.until !== undefined) {
          where.andWhere('e.received_at < :until', { until: filter.until });
        }
      }),
    );
    return query.getCount();
  });
}

/** The provider kinds of the stored events (of one endpoint, when given). */
export async function storedProviderKinds(
  store: WebhookStore,
  endpoint?: string,
): Promise<string[]> {
  const rows = await store.transaction((manager) => {
    const query = manager
      .createQueryBuilder(WebhookEventEntity, 'e')
      .select('DISTINCT e.provider', 'provider');
    if (endpoint !== undefined) {
      query.where('e.endpoint = :endpoint', { endpoint });
    }
    return query.getRawMany<{ provider: string }>();
  });
  return rows.map((row) => row.provider);
}
