import { closestName } from '../core/closest-name';
import type { DispatchPauseScope } from '../store/ports/pause-queries.port';
import type { InboxQueries, RecordedNames } from '../store/ports/inbox-queries.port';
import {
  KNOWN_NAMES,
  NOTHING_DONE,
  PAUSE_UNRECORDED_NAME,
  UNKNOWN_NAME,
} from './webhook-admin.messages';

/** What a pause or a filter names every endpoint or every handler with. */
const EVERY = '*';

/** An app's endpoint and handler names: the configured endpoints and the registered handlers. */
export type ConfiguredNames = RecordedNames;

/** The operator's commands that name an endpoint or a handler. */
export type NamingCommand = keyof typeof NOTHING_DONE;

/** What a name names. */
type NameKind = 'endpoint' | 'handler';

/**
 * An operator's command named an endpoint or a handler that none of the known ones is (a typo,
 * say), and changed nothing. Its message lists the known ones, and the nearest when it looks
 * like a typo of one.
 */
export class UnknownNameError extends RangeError {
  constructor(
    readonly kind: NameKind,
    readonly unknownName: string,
    message: string,
  ) {
    super(message);
    this.name = 'UnknownNameError';
  }
}

/** The names `scope` gives, each with what it names; `*` and left out name none. */
function namesIn(scope: DispatchPauseScope): [NameKind, string][] {
  const named: [NameKind, string | undefined][] = [
    ['endpoint', scope.endpoint],
    ['handler', scope.handler],
  ];
  return named.filter((entry): entry is [NameKind, string] => {
    const name = entry[1];
    return name !== undefined && name !== EVERY;
  });
}

const namesOf = (names: RecordedNames, kind: NameKind) =>
  kind === 'endpoint' ? names.endpoints : names.handlers;

/** Both lists of names, each once, sorted, without `*`. */
function merged(a: RecordedNames, b: RecordedNames): RecordedNames {
  const union = (x: readonly string[], y: readonly string[]) =>
    [...new Set([...x, ...y])].filter((name) => name !== EVERY).sort();
  return { endpoints: union(a.endpoints, b.endpoints), handlers: union(a.handlers, b.handlers) };
}

/**
 * Checks the endpoint and handler an operator's command names before it changes anything, so a
 * typo is refused rather than answered "paused" while it holds nothing. What is known depends on
 * the command and on what the process knows:
 * - in the app: `pause` takes the configured endpoints and registered handlers; `resume` those
 *   and the names of the pauses in force, so a pause of a name since removed from the
 *   configuration can still be lifted; `replay` and `discard` those and the names the database
 *   records, so events of a retired endpoint can still be replayed or discarded;
 * - in the CLI, which reads the database and not the app's configuration: the names the
 *   database records (see `InboxQueries.recordedNames()`).
 * A name the configuration knows costs no query.
 */
export class OperatorNames {
  /**
   * @param configured the app's names, read at each check (handlers register after startup);
   *   left out in the CLI.
   */
  constructor(
    private readonly queries: Pick<InboxQueries, 'pauses' | 'recordedNames'>,
    private readonly configured?: () => ConfiguredNames,
  ) {}

  /**
   * @throws UnknownNameError when `named` holds an endpoint or a handler none of the known ones
   *   is, naming them.
   */
  async check(command: NamingCommand, named: DispatchPauseScope): Promise<void> {
    const wanted = namesIn(named);
    const configured = this.configured?.();
    if (
      wanted.length === 0 ||
      (configured && wanted.every(([kind, name]) => namesOf(configured, kind).includes(name)))
    ) {
      return;
    }
    const { known, source } = await this.knownFor(command, configured);
    for (const [kind, name] of wanted) {
      const names = namesOf(known, kind);
      if (!names.includes(name)) {
        const message = UNKNOWN_NAME(
          kind,
          name,
          closestName(name, names),
          KNOWN_NAMES[source][kind],
          names,
          NOTHING_DONE[command],
        );
        const hint =
          source === 'recorded' && command === 'pause' ? ` ${PAUSE_UNRECORDED_NAME}` : '';
        throw new UnknownNameError(kind, name, message + hint);
      }
    }
  }

  private async knownFor(
    command: NamingCommand,
    configured: ConfiguredNames | undefined,
  ): Promise<{ known: RecordedNames; source: keyof typeof KNOWN_NAMES }> {
    if (!configured) {
      return { known: await this.queries.recordedNames(), source: 'recorded' };
    }
    if (command === 'pause') {
      return { known: merged(configured, { endpoints: [], handlers: [] }), source: 'configured' };
    }
    if (command === 'resume') {
      const pauses = await this.queries.pauses();
      const paused = {
        endpoints: pauses.map((pause) => pause.endpoint),
        handlers: pauses.map((pause) => pause.handler),
      };
      return { known: merged(configured, paused), source: 'paused' };
    }
    return { known: merged(configured, await this.queries.recordedNames()), source: 'stored' };
  }
}
