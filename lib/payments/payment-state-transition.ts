import type { ColumnMetadata } from 'typeorm/metadata/ColumnMetadata';
import type { EntityManager, ObjectLiteral } from 'typeorm';
import { WebhookConfigurationError } from '../core/webhook-errors';
import {
  PaymentStateTarget,
  resolvePaymentStateTarget,
  ResolvedPaymentStateTarget,
} from './payment-state-target';
import {
  emptyFrom,
  fromNotAllowed,
  guardWithoutColumn,
  invalidId,
  invalidOccurredAt,
  invalidVersion,
  keptChanging,
  keyNotUnique,
  notAppliedMessage,
} from './payments.messages';
import { SafeLogger } from '../telemetry/safe-logger';
import { keyValueFor } from './key-value';

/**
 * What became of a transition:
 * - `applied`: this call changed the row; run the side effect.
 * - `not_allowed`: the row is in a state from which the machine (or `from`) does not allow `to`,
 *   including a row already in `to`.
 * - `stale`: the move is allowed, but older than the row's current state (`occurredAt`/`version`).
 * - `not_found`: no row has that id.
 */
export type TransitionOutcome = 'applied' | 'not_allowed' | 'stale' | 'not_found';

/** The result of `transition()`: everything needed to record and log the outcome. */
export interface TransitionResult<S extends string = string> {
  /** What became of the transition. */
  readonly outcome: TransitionOutcome;
  /** True only for `applied`: run the side effect exactly when this is true. */
  readonly changed: boolean;
  /** The state asked for. */
  readonly to: S;
  /**
   * The row's state when the transition was not applied (`not_allowed`, `stale`), read after the
   * failed update in the same transaction. Absent for `applied` and `not_found`.
   */
  readonly from?: string;
  /** For `stale`: the guard that found the move older than the row's current state. */
  readonly staleBy?: 'occurredAt' | 'version';
}

/** Where non-applied transitions are logged; a Nest `LoggerService` (e.g. `ctx.logger`) fits. */
export interface PaymentStateLogger {
  log(message: string): unknown;
  warn(message: string): unknown;
}

/** Options of `transition()`. */
export interface TransitionOptions<S extends string = string> {
  /**
   * Only move from these states; each must be one the machine allows for `to`.
   * @default every state the machine allows `to` from
   */
  readonly from?: S | readonly S[];
  /**
   * When the provider says the change happened. Needs the target's `occurredAt` column: the
   * move applies only when the stored time is empty or not later, and then stores this one.
   * `null` or absent: no time guard, the stored time is kept.
   */
  readonly occurredAt?: Date | null;
  /**
   * The version of the new state. Needs the target's `version` column: the move applies only when
   * the stored version is empty or smaller, and then stores this one. `null` or absent: no guard.
   */
  readonly version?: number | null;
  /**
   * Where `not_allowed`, `stale` and `not_found` are logged (at `log`, `log` and `warn`).
   * `null` logs nothing.
   * @default a Nest Logger with the context "PaymentStates"
   */
  readonly logger?: PaymentStateLogger | null;
}

/** A transition checked against its target, ready to run. */
interface PlannedTransition {
  readonly target: ResolvedPaymentStateTarget;
  readonly id: string | number;
  /** `id` as the key's column holds it; undefined when no row can have it. */
  readonly key: string | number | undefined;
  readonly to: string;
  readonly from: readonly string[];
  readonly occurredAt?: Date;
  readonly version?: number;
}

/** What the read after a failed update found. */
interface RowVerdict {
  readonly state: string;
  readonly stateAllowed: boolean;
  readonly occurredAtOk: boolean;
  readonly versionOk: boolean;
}

/** @internal where transitions log unless told otherwise. */
export const DEFAULT_PAYMENT_STATE_LOGGER: PaymentStateLogger = new SafeLogger('PaymentStates');

/**
 * NOTE: between a failed update and the read that explains it, another transaction may commit a
 * move into a state from which `to` is allowed (PostgreSQL, READ COMMITTED). The update is then
 * tried again; a row that keeps moving gives up after this many tries.
 */
const MAX_ATTEMPTS = 3;

function escape(manager: EntityManager, column: ColumnMetadata): string {
  return manager.connection.driver.escape(column.databaseName);
}

/** A parameter in the form the driver stores for `column`, so comparisons match what is stored. */
function persisted(manager: EntityManager, column: ColumnMetadata, value: unknown): unknown {
  return manager.connection.driver.preparePersistentValue(value, column);
}

/** Adds `column = value` to an update's values, nested under the column's embeddeds if any. */
function assign(values: ObjectLiteral, column: ColumnMetadata, value: unknown): void {
  let into = values;
  for (const name of column.embeddedMetadata?.parentPropertyNames ?? []) {
    into = into[name] ??= {};
  }
  into[column.propertyName] = value;
}

function plan<S extends string>(
  manager: EntityManager,
  target: PaymentStateTarget<ObjectLiteral, S>,
  id: string | number,
  to: S,
  options: TransitionOptions<S>,
): PlannedTransition {
  const allowed = target.machine.allowedFrom(to);
  const resolved = resolvePaymentStateTarget(target, manager.connection);
  if (typeof id === 'string' ? id === '' : typeof id !== 'number' || !Number.isFinite(id)) {
    throw new WebhookConfigurationError(invalidId(id));
  }
  let from: readonly string[] = allowed;
  if (options.from !== undefined) {
    from = typeof options.from === 'string' ? [options.from] : [...options.from];
    if (from.length === 0) {
      throw new WebhookConfigurationError(emptyFrom(to, allowed));
    }
    for (const state of from) {
      if (!allowed.includes(state as S)) {
        throw new WebhookConfigurationError(fromNotAllowed(state, to, allowed));
      }
    }
  }
  const { occurredAt, version } = options;
  if (occurredAt !== undefined && occurredAt !== null) {
    if (!(occurredAt instanceof Date) || Number.isNaN(occurredAt.getTime())) {
      throw new WebhookConfigurationError(invalidOccurredAt(occurredAt));
    }
    if (!resolved.occurredAt) {
      throw new WebhookConfigurationError(guardWithoutColumn(resolved.name, 'occurredAt'));
    }
  }
  if (version !== undefined && version !== null) {
    if (!Number.isSafeInteger(version)) {
      throw new WebhookConfigurationError(invalidVersion(version));
    }
    if (!resolved.version) {
      throw new WebhookConfigurationError(guardWithoutColumn(resolved.name, 'version'));
    }
  }
  return {
    target: resolved,
    id,
    key: keyValueFor(resolved.key, id, manager.connection.options.type),
    to,
    from,
    ...(occurredAt instanceof Date && { occurredAt }),
    ...(typeof version === 'number' && { version }),
  };
}

/** The one conditional UPDATE; the number of rows it changed. */
async function update(manager: EntityManager, planned: PlannedTransition): Promise<number> {
  const { target, occurredAt, version } = planned;
  const values: ObjectLiteral = {};
  assign(values, target.state, planned.to);
  const query = manager
    .createQueryBuilder()
    .update(target.metadata.target)
    .where(`${escape(manager, target.key)} = :paymentStateId`, {
      paymentStateId: persisted(manager, target.key, planned.key),
    })
    .andWhere(`${escape(manager, target.state)} IN (:...paymentStateFrom)`, {
      paymentStateFrom: planned.from.map((state) => persisted(manager, target.state, state)),
    });
  if (occurredAt !== undefined && target.occurredAt) {
    const column = escape(manager, target.occurredAt);
    assign(values, target.occurredAt, occurredAt);
    query.andWhere(`(${column} IS NULL OR ${column} <= :paymentStateOccurredAt)`, {
      paymentStateOccurredAt: persisted(manager, target.occurredAt, occurredAt),
    });
  }
  if (version !== undefined && target.version) {
    const column = escape(manager, target.version);
    assign(values, target.version, version);
    query.andWhere(`(${column} IS NULL OR ${column} < :paymentStateVersion)`, {
      paymentStateVersion: persisted(manager, target.version, version),
    });
  }
  const result = await query.set(values).updateEntity(false).execute();
  if (typeof result.affected !== 'number') {
    // NOTE: both supported drivers report it (pg rowCount, better-sqlite3 changes); a driver
    // that does not would make every transition look lost, so fail loudly instead.
    throw new WebhookConfigurationError(
      `transition(): the "${manager.connection.options.type}" driver did not report how many ` +
        'rows the update changed, so exactly-once cannot be decided.',
    );
  }
  return result.affected;
}

/**
 * Reads the row after a failed update, in the same transaction, and has the database itself
 * evaluate each condition of the update so the verdict uses the same comparisons.
 */
async function read(
  manager: EntityManager,
  planned: PlannedTransition,
): Promise<RowVerdict | undefined> {
  const { target, occurredAt, version } = planned;
  const state = escape(manager, target.state);
  const query = manager
    .createQueryBuilder()
    .select(state, 'payment_state')
    .from(target.metadata.target, 'payment_row')
    .where(`${escape(manager, target.key)} = :paymentStateId`, {
      paymentStateId: persisted(manager, target.key, planned.key),
    });
  if (planned.from.length > 0) {
    query
      .addSelect(
        `CASE WHEN ${state} IN (:...paymentStateFrom) THEN 1 ELSE 0 END`,
        'payment_state_allowed',
      )
      .setParameter(
        'paymentStateFrom',
        planned.from.map((value) => persisted(manager, target.state, value)),
      );
  }
  if (occurredAt !== undefined && target.occurredAt) {
    const column = escape(manager, target.occurredAt);
    query
      .addSelect(
        `CASE WHEN ${column} IS NULL OR ${column} <= :paymentStateOccurredAt THEN 1 ELSE 0 END`,
        'payment_occurred_at_ok',
      )
      .setParameter('paymentStateOccurredAt', persisted(manager, target.occurredAt, occurredAt));
  }
  if (version !== undefined && target.version) {
    const column = escape(manager, target.version);
    query
      .addSelect(
        `CASE WHEN ${column} IS NULL OR ${column} < :paymentStateVersion THEN 1 ELSE 0 END`,
        'payment_version_ok',
      )
      .setParameter('paymentStateVersion', persisted(manager, target.version, version));
  }
  const row = await query.getRawOne<Record<string, unknown>>();
  if (!row) {
    return undefined;
  }
  const yes = (value: unknown) => value === undefined || Number(value) === 1;
  return {
    state: String(manager.connection.driver.prepareHydratedValue(row.payment_state, target.state)),
    stateAllowed: planned.from.length > 0 && yes(row.payment_state_allowed),
    occurredAtOk: yes(row.payment_occurred_at_ok),
    versionOk: yes(row.payment_version_ok),
  };
}

/** Runs a planned transition: the update, and when it changed nothing, why. */
async function execute(
  manager: EntityManager,
  planned: PlannedTransition,
): Promise<TransitionResult> {
  const { target, to } = planned;
  if (planned.key === undefined) {
    return { outcome: 'not_found', changed: false, to };
  }
  for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
    if (planned.from.length > 0) {
      const changed = await update(manager, planned);
      if (changed === 1) {
        return { outcome: 'applied', changed: true, to };
      }
      if (changed > 1) {
        throw new WebhookConfigurationError(
          keyNotUnique(target.name, target.key.propertyPath, changed),
        );
      }
    }
    const row = await read(manager, planned);
    if (!row) {
      return { outcome: 'not_found', changed: false, to };
    }
    if (!row.stateAllowed) {
      return { outcome: 'not_allowed', changed: false, to, from: row.state };
    }
    if (!row.occurredAtOk) {
      return { outcome: 'stale', changed: false, to, from: row.state, staleBy: 'occurredAt' };
    }
    if (!row.versionOk) {
      return { outcome: 'stale', changed: false, to, from: row.state, staleBy: 'version' };
    }
  }
  throw new Error(keptChanging(target.name, planned.id, to, MAX_ATTEMPTS));
}

/** Logs a transition that was not applied. */
function report(
  logger: PaymentStateLogger | null,
  planned: PlannedTransition,
  result: TransitionResult,
  prefix = '',
): void {
  if (logger === null || result.outcome === 'applied') {
    return;
  }
  const message =
    prefix +
    notAppliedMessage(planned.target.name, planned.id, planned.to, result.outcome, {
      from: result.from,
      allowedFrom: planned.from,
      staleBy: result.staleBy,
    });
  if (result.outcome === 'not_found') {
    logger.warn(message);
  } else {
    logger.log(message);
  }
}

/**
 * Runs a transition with an optional log prefix; shared by `transition()` and
 * `applyPaymentEvent()`.
 * @internal
 */
export async function runTransition<S extends string>(
  manager: EntityManager,
  target: PaymentStateTarget<ObjectLiteral, S>,
  id: string | number,
  to: S,
  options: TransitionOptions<S>,
  logPrefix?: string,
): Promise<TransitionResult<S>> {
  const planned = plan(manager, target, id, to, options);
  const result = await execute(manager, planned);
  report(
    options.logger === undefined ? DEFAULT_PAYMENT_STATE_LOGGER : options.logger,
    planned,
    result,
    logPrefix,
  );
  return result as TransitionResult<S>;
}

/**
 * Moves one row to state `to` with one conditional UPDATE in the caller's transaction:
 * `WHERE key = :id AND state IN (:allowedFrom)`, plus the `occurredAt`/`version` guard when
 * given. Of any number of concurrent calls for one row, exactly one is `applied`; run the side
 * effect (e-mail, fulfilment) only when `changed` is true, through the same `manager`, so that it
 * commits or rolls back with the state.
 *
 * A move the row's state does not allow, or that is older than the row's state, is not an error:
 * it is returned as `not_allowed` or `stale` (with the row's current state in `from`) and logged.
 * The helper never takes the SQLite connection lock: pass the manager of a transaction you hold
 * (a handler's `ctx.manager`, or `WebhookTransactions.run()`).
 *
 * @param manager the caller's transactional EntityManager.
 * @param target the table, from `paymentStateTarget()`.
 * @param id the value of the target's key (the primary key by default).
 * @param to the state to move to.
 * @throws WebhookConfigurationError for programming errors: `to` not declared by the machine,
 * `from` outside what the machine allows, a guard without its column, an unsupported database,
 * or a key that matched several rows (the caller's transaction should roll back).
 * @example
 * ```ts
 * const result = await transition(ctx.manager, orderPayments, orderId, 'paid', {
 *   occurredAt: event.occurredAt,
 * });
 * if (result.changed) {
 *   await ctx.manager.insert(Shipment, { orderId });
 * }
 * ```
 */
export function transition<E extends ObjectLiteral, S extends string>(
  manager: EntityManager,
  target: PaymentStateTarget<E, S>,
  id: string | number,
  to: NoInfer<S>,
  options: TransitionOptions<NoInfer<S>> = {},
): Promise<TransitionResult<S>> {
  return runTransition(manager, target as PaymentStateTarget<ObjectLiteral, S>, id, to, options);
}
