import { checkTimeOrder, WebhookFilterError } from '../admin/event-filter-rules';
import type { WebhookEventFilter } from '../admin/webhook-admin';
import { WebhookEventStatus } from '../store/ports/webhook-event-status';
import { CliUsageError } from './cli-errors';
import type { EventQueries } from '../store/ports/event-queries.port';
import { OptionSpecs, ParsedCommand, parseStatuses, parseTime, stringOption } from './arguments';

/** The filter options `events list`, `events replay` and `events discard` share. */
export const FILTER_OPTIONS: OptionSpecs = {
  endpoint: { type: 'string' },
  tenant: { type: 'string' },
  status: { type: 'string' },
  event: { type: 'string' },
  type: { type: 'string' },
  payment: { type: 'string' },
  merchant: { type: 'string' },
  since: { type: 'string' },
  until: { type: 'string' },
  handler: { type: 'string' },
  error: { type: 'string' },
  group: { type: 'string' },
};

/** The options of `FILTER_OPTIONS` that name a failure, and so match dead and retrying events only. */
const FAILURE_OPTIONS = ['handler', 'error', 'group'] as const;

/** The filter options as the help lists them. */
export const FILTER_HELP = `  --endpoint <name>      endpoint name
  --tenant <name>        the tenant of a tenant endpoint
  --event <id>           the provider's event id
  --type <type>          event type, e.g. payment.succeeded or stripe:charge.dispute.created
  --payment <ref>        the provider's payment id
  --merchant <ref>       the application's order id
  --since <time>         received at or after: an age (30d, 12h, 15m) or an ISO 8601 time
  --until <time>         received before: an age or an ISO 8601 time
  --handler <key>        failed last in this handler (ClassName.method; dead/retrying only)
  --error <text>         failed last with an error containing this text (case-insensitive)
  --group <fingerprint>  in this failure group (the FINGERPRINT column of "events groups")`;

/**
 * The event filter given on the command line.
 * @param statuses the statuses `--status` may name.
 * @throws CliUsageError on an invalid time or status, or a `--since` not before `--until`.
 */
export function eventFilter(
  command: string,
  parsed: ParsedCommand,
  now: Date,
  statuses: readonly WebhookEventStatus[],
  defaultStatuses?: readonly WebhookEventStatus[],
): WebhookEventFilter {
  for (const name of FAILURE_OPTIONS) {
    if (stringOption(parsed, name)?.trim() === '') {
      throw new CliUsageError(`--${name} needs a value`, command);
    }
  }
  const status = stringOption(parsed, 'status');
  const since = stringOption(parsed, 'since');
  const until = stringOption(parsed, 'until');
  const filter: WebhookEventFilter = {
    endpoint: stringOption(parsed, 'endpoint'),
    tenant: stringOption(parsed, 'tenant'),
    status:
      status === undefined ? defaultStatuses : parseStatuses(command, '--status', status, statuses),
    eventId: stringOption(parsed, 'event'),
    type: stringOption(parsed, 'type'),
    paymentRef: stringOption(parsed, 'payment'),
    merchantRef: stringOption(parsed, 'merchant'),
    since: since === undefined ? undefined : parseTime(command, '--since', since, now),
    until: until === undefined ? undefined : parseTime(command, '--until', until, now),
    handler: stringOption(parsed, 'handler'),
    error: stringOption(parsed, 'error'),
    fingerprint: stringOption(parsed, 'group')?.trim(),
  };
  try {
    checkTimeOrder(filter, { since: '--since', until: '--until' });
  } catch (error) {
    throw error instanceof WebhookFilterError ? new CliUsageError(error.message, command) : error;
  }
  return filter;
}

/** The filter options given on the command line besides `--status`, as `--name`. */
export function narrowingFilters(parsed: ParsedCommand): string[] {
  return Object.keys(FILTER_OPTIONS)
    .filter((name) => name !== 'status' && parsed.values[name] !== undefined)
    .map((name) => `--${name}`);
}

/** The provider kinds of the stored events (of one endpoint, when given). */
export function storedProviderKinds(
  queries: Pick<EventQueries, 'providerKinds'>,
  endpoint?: string,
): Promise<string[]> {
  return queries.providerKinds(endpoint);
}
