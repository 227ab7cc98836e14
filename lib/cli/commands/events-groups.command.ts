import type { FailureGroup, FailureGroupFilter } from '../../admin/webhook-admin';
import { safeText } from '../../telemetry/safe-text';
import {
  DATABASE_OPTIONS,
  flagOption,
  integerOption,
  ParsedCommand,
  parseStatuses,
  stringOption,
} from '../arguments';
import { CLI_NAME, CliCommand, COMMON_HELP, DATABASE_HELP } from '../cli-command';
import { CliUsageError, EXIT_OK } from '../cli-errors';
import { describeDuration, printJson, printLines, shellWord, table } from '../cli-io';
import { withInbox } from './events.command';

/** Longest error shown in the table; `events show` has all of it. */
const MAX_ERROR_WIDTH = 100;

/** The failure-group filter given on the command line. */
function groupFilter(command: string, parsed: ParsedCommand): FailureGroupFilter {
  const status = stringOption(parsed, 'status');
  const statuses =
    status === undefined ? [] : parseStatuses(command, '--status', status, ['dead', 'retrying']);
  const filter = {
    endpoint: stringOption(parsed, 'endpoint'),
    tenant: stringOption(parsed, 'tenant'),
    handler: stringOption(parsed, 'handler'),
    error: stringOption(parsed, 'error'),
    fingerprint: stringOption(parsed, 'group')?.trim(),
    status: statuses.length === 1 ? statuses[0] : undefined,
  };
  for (const [option, value] of [
    ['--handler', filter.handler],
    ['--error', filter.error],
    ['--group', filter.fingerprint],
  ] as const) {
    if (value?.trim() === '') {
      throw new CliUsageError(`${option} needs a value`, command);
    }
  }
  return filter;
}

/** The error class and the first line of the latest error, cut to the table's width. */
function errorHeadline(group: FailureGroup): string {
  const first = safeText((group.sampleError ?? '').split('\n')[0].trim());
  const errorClass = safeText(group.errorClass ?? 'Error');
  const headline =
    first === '' ? errorClass : first.startsWith(errorClass) ? first : `${errorClass}: ${first}`;
  return headline.length <= MAX_ERROR_WIDTH ? headline : `${headline.slice(0, MAX_ERROR_WIDTH)}…`;
}

/** The commands that act on `group`, to copy. */
function nextSteps(group: FailureGroup): string[] {
  const fingerprint = shellWord(group.fingerprint);
  const scope =
    group.handlerKey === null
      ? `--endpoint ${shellWord(group.endpoint)}`
      : `--endpoint ${shellWord(group.endpoint)} --handler ${shellWord(group.handlerKey)}`;
  const steps: [string, string][] = [
    [`events show ${shellWord(group.sampleId)}`, 'its latest failure, attempt by attempt'],
    [`events replay --group ${fingerprint} --dry-run`, 'what a replay would put back'],
    [`events replay --group ${fingerprint}`, 'once the cause is fixed: run them again'],
    [`events discard --group ${fingerprint} --reason '…'`, 'never run them: settle as ignored'],
    [`pause ${scope} --reason '…'`, 'hold the handler while the cause is fixed'],
  ];
  const width = Math.max(...steps.map(([step]) => step.length));
  return [
    'To act on a group (here the first; put its FINGERPRINT after --group):',
    ...steps.map(([step, why]) => `  ${CLI_NAME} ${step.padEnd(width)}  # ${why}`),
  ];
}

/** `events groups`: dead and retrying events grouped by cause, largest group first. */
export const eventsGroupsCommand: CliCommand = {
  name: 'events groups',
  summary: 'dead and retrying events grouped by cause, largest first',
  maxPositionals: 0,
  options: {
    ...DATABASE_OPTIONS,
    endpoint: { type: 'string' },
    tenant: { type: 'string' },
    handler: { type: 'string' },
    error: { type: 'string' },
    group: { type: 'string' },
    status: { type: 'string' },
    limit: { type: 'string' },
  },
  help: `Usage: ${CLI_NAME} events groups [--endpoint <name>] [--tenant <name>] [--handler <key>]
                                      [--error <text>] [--group <fingerprint>]
                                      [--status dead|retrying] [--limit <n>] [--json]

Groups the dead and retrying events by what they failed on last: the endpoint, the handler
and the error's fingerprint (its class, its message with ids and numbers masked, and the first
frame in the app's code), largest group first. Each row has how many events the group holds
and how many of them are dead, when its failures began and when the latest one happened, and
the latest error's first line. A group's FINGERPRINT is what "events replay --group",
"events discard --group" and "events list --group" take.

Filters:
  --endpoint <name>      endpoint name
  --tenant <name>        the tenant of a tenant endpoint
  --handler <key>        the handler that failed (ClassName.method)
  --error <text>         errors containing this text (case-insensitive)
  --group <fingerprint>  one group
  --status <status>      dead or retrying (default both)
  --limit <n>            at most n groups, 1 to 1000 (default 50)
${COMMON_HELP}

${DATABASE_HELP}

Examples:
  ${CLI_NAME} events groups
  ${CLI_NAME} events groups --endpoint stripe --status dead
  ${CLI_NAME} events groups --error timeout --json`,
  async run(parsed, io) {
    const filter = groupFilter(this.name, parsed);
    const limit = integerOption(this.name, parsed, 'limit', 1, 1000);
    const groups = await withInbox(this.name, parsed, io, ({ admin }) =>
      admin.failureGroups({ ...filter, limit }),
    );
    if (flagOption(parsed, 'json')) {
      printJson(io, groups);
      return EXIT_OK;
    }
    if (groups.length === 0) {
      printLines(io, ['No dead or retrying events match.']);
      return EXIT_OK;
    }
    const now = io.now().getTime();
    const ago = (time: Date) => `${describeDuration(Math.max(0, now - time.getTime()))} ago`;
    printLines(io, [
      ...table(
        ['COUNT', 'DEAD', 'ENDPOINT', 'HANDLER', 'FIRST SEEN', 'LAST SEEN', 'FINGERPRINT', 'ERROR'],
        groups.map((group) => [
          String(group.count),
          String(group.dead),
          group.endpoint,
          group.handlerKey ?? '(before handlers)',
          ago(group.firstSeen),
          ago(group.lastSeen),
          group.fingerprint,
          errorHeadline(group),
        ]),
      ),
      '',
      ...nextSteps(groups[0]),
    ]);
    return EXIT_OK;
  },
};
