import type { WebhookEventStatus } from '../../store/ports/webhook-event-status';
import { safeText } from '../../telemetry/safe-text';
import { ACTOR_HELP, ACTOR_OPTIONS, cliActor } from '../actor';
import { DATABASE_OPTIONS, flagOption, stringOption } from '../arguments';
import { CLI_NAME, CliCommand, COMMON_HELP, DATABASE_HELP } from '../cli-command';
import { CliUsageError, EXIT_OK } from '../cli-errors';
import { printJson, printLines } from '../cli-io';
import { eventFilter, FILTER_HELP, FILTER_OPTIONS, narrowingFilters } from '../event-filter';
import { withInbox } from './events.command';

const DISCARDABLE: readonly WebhookEventStatus[] = ['dead', 'retrying'];

/** `events discard`: settles dead or retrying events as ignored, for good, with a reason. */
export const eventsDiscardCommand: CliCommand = {
  name: 'events discard',
  summary: 'settle dead or retrying events as ignored, with a reason',
  maxPositionals: 0,
  options: {
    ...DATABASE_OPTIONS,
    ...FILTER_OPTIONS,
    ...ACTOR_OPTIONS,
    reason: { type: 'string' },
    'dry-run': { type: 'boolean' },
    all: { type: 'boolean' },
  },
  help: `Usage: ${CLI_NAME} events discard --group <fingerprint> --reason <text> [--dry-run] [--json]
       ${CLI_NAME} events discard [filters] --reason <text> [--dry-run] [--json]
       ${CLI_NAME} events discard --all --reason <text> [--dry-run] [--json]

Settles the dead and retrying events matching the filters as ignored: their handlers never run
for them again. Use it for events that should never be applied (a failure group whose orders
were deleted, say) once "events groups" and "events show" have told you why they fail. The
events stay in the inbox, so a provider retry is still a duplicate; the reason is kept as their
last error and, with the actor, in their history. Events a worker holds right now are left.
One of them can be put back later with "events replay <id>".

It asks nothing: --reason is required, and without a filter (besides --status) it refuses
unless --all says every dead and retrying event is meant. Run it with --dry-run first to see
how many events it would settle. An --endpoint or --handler the database has no record of fails
with exit code 1 and discards nothing, naming those it has and the nearest.

Filters:
  --status <list>        ${DISCARDABLE.join(', ')} (comma-separated; default both)
${FILTER_HELP}

Options:
  --reason <text>        required: why, kept with the events
  --dry-run              count what would be discarded, change nothing
  --all                  every dead and retrying event, when no filter is given
${ACTOR_HELP}
${COMMON_HELP}

${DATABASE_HELP}

Examples:
  ${CLI_NAME} events discard --group 3f9c2a7e41b0d586 --reason 'orders deleted in the shop' --dry-run
  ${CLI_NAME} events discard --endpoint legacy --status dead --reason 'endpoint retired'`,
  async run(parsed, io) {
    const reason = stringOption(parsed, 'reason')?.trim();
    if (reason === undefined || reason === '') {
      throw new CliUsageError(
        "--reason is required: say why these events should never run, e.g. --reason 'orders deleted'",
        this.name,
      );
    }
    const filters = narrowingFilters(parsed);
    const all = flagOption(parsed, 'all');
    if (filters.length === 0 && !all) {
      throw new CliUsageError(
        'give a filter (--group <fingerprint>, --endpoint, --handler, --since, …) or --all to ' +
          'discard every dead and retrying event',
        this.name,
      );
    }
    if (filters.length > 0 && all) {
      throw new CliUsageError(
        `give filters or --all, not both (got --all with ${filters.join(', ')})`,
        this.name,
      );
    }
    const filter = eventFilter(this.name, parsed, io.now(), DISCARDABLE, DISCARDABLE);
    const dryRun = flagOption(parsed, 'dry-run');
    const actor = cliActor(this.name, parsed, io.env);
    const report = await withInbox(this.name, parsed, io, ({ admin }) =>
      admin.discard(filter, { reason, dryRun, actor }),
    );
    if (flagOption(parsed, 'json')) {
      printJson(io, report);
      return EXIT_OK;
    }
    printLines(io, [
      dryRun
        ? `Would discard ${report.wouldDiscard ?? 0} event(s); nothing was changed.`
        : `Discarded ${report.discarded} event(s): settled as ignored (${safeText(reason)}).`,
    ]);
    return EXIT_OK;
  },
};
