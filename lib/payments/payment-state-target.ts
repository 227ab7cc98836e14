import type { ColumnMetadata } from 'typeorm/metadata/ColumnMetadata';
import type { EntityMetadata } from 'typeorm/metadata/EntityMetadata';
import type { DataSource, EntityTarget, ObjectLiteral } from 'typeorm';
import { WebhookConfigurationError } from '../core/webhook-errors';
import { isPaymentStateMachine, PaymentStateMachine } from './payment-state-machine';
import {
  entityNotRegistered,
  keyRequired,
  readOnlyTargetColumn,
  sharedTargetColumn,
  TARGET_NEEDS_ENTITY,
  TARGET_NEEDS_MACHINE,
  targetPropertyNotAString,
  unknownTargetProperty,
  unsupportedDatabase,
} from './payments.messages';

/** A property name of `E`. */
export type EntityProperty<E> = Extract<keyof E, string>;

/** Where a payment's state lives: options of `paymentStateTarget()`. */
export interface PaymentStateTargetOptions<E extends ObjectLiteral, S extends string> {
  /** The state machine the rows follow, from `definePaymentStates()`. Required. */
  readonly machine: PaymentStateMachine<S>;
  /**
   * The property holding the state.
   * @default 'state'
   */
  readonly state?: EntityProperty<E>;
  /**
   * A nullable date property holding when, by the provider's clock, the current state began
   * (e.g. `stateChangedAt`; not `paidAt`, which a later refund would overwrite). When set,
   * `applyPaymentEvent()` writes the event's `occurredAt` there and a change strictly older than
   * the stored one is `stale`.
   * @default none: no time guard
   */
  readonly occurredAt?: EntityProperty<E>;
  /**
   * A nullable integer property holding the version of the current state (e.g. a provider's
   * sequence number). When set, `transition(..., { version })` writes it and a version not
   * greater than the stored one is `stale`.
   * @default none: no version guard
   */
  readonly version?: EntityProperty<E>;
  /**
   * The unique property the id passed to `transition()` is matched against, e.g. `paymentRef`
   * to find rows by the provider's payment id.
   * @default the entity's primary column
   */
  readonly key?: EntityProperty<E>;
}

/**
 * A table whose rows follow a payment state machine: the entity, the machine and which
 * properties hold the state and its guards. Built by `paymentStateTarget()`; frozen.
 */
export interface PaymentStateTarget<
  E extends ObjectLiteral = ObjectLiteral,
  S extends string = string,
> {
  /** The TypeORM entity. */
  readonly entity: EntityTarget<E>;
  /** The state machine the rows follow. */
  readonly machine: PaymentStateMachine<S>;
  /** The property holding the state. */
  readonly state: EntityProperty<E>;
  /** The property holding when the current state began, if guarded by time. */
  readonly occurredAt?: EntityProperty<E>;
  /** The property holding the state's version, if guarded by version. */
  readonly version?: EntityProperty<E>;
  /** The property ids are matched against; the primary column when absent. */
  readonly key?: EntityProperty<E>;
}

/**
 * Describes the table whose rows `transition()` and `applyPaymentEvent()` move between states.
 * Property names are checked against the entity's TypeORM metadata on first use.
 *
 * @throws WebhookConfigurationError when the entity or machine is missing, or a property option
 * is not a name.
 * @example
 * ```ts
 * export const orderPayments = paymentStateTarget(Order, {
 *   machine: orderStates,
 *   state: 'status',
 *   occurredAt: 'statusChangedAt',
 * });
 * ```
 */
export function paymentStateTarget<E extends ObjectLiteral, S extends string>(
  entity: EntityTarget<E>,
  options: PaymentStateTargetOptions<E, S>,
): PaymentStateTarget<E, S> {
  if (entity === undefined || entity === null || entity === '') {
    throw new WebhookConfigurationError(TARGET_NEEDS_ENTITY);
  }
  if (!isPaymentStateMachine(options?.machine)) {
    throw new WebhookConfigurationError(TARGET_NEEDS_MACHINE);
  }
  for (const option of ['state', 'occurredAt', 'version', 'key'] as const) {
    const value: unknown = options[option];
    if (value !== undefined && (typeof value !== 'string' || value === '')) {
      throw new WebhookConfigurationError(targetPropertyNotAString(option, value));
    }
  }
  return Object.freeze({
    entity,
    machine: options.machine,
    state: options.state ?? ('state' as EntityProperty<E>),
    ...(options.occurredAt !== undefined && { occurredAt: options.occurredAt }),
    ...(options.version !== undefined && { version: options.version }),
    ...(options.key !== undefined && { key: options.key }),
  });
}

/** A target's columns in one data source. */
export interface ResolvedPaymentStateTarget {
  readonly metadata: EntityMetadata;
  /** Name used in messages: the entity's name. */
  readonly name: string;
  readonly key: ColumnMetadata;
  readonly state: ColumnMetadata;
  readonly occurredAt?: ColumnMetadata;
  readonly version?: ColumnMetadata;
}

const SUPPORTED_DATABASES = new Set(['postgres', 'better-sqlite3']);

const resolvedTargets = new WeakMap<
  PaymentStateTarget,
  WeakMap<DataSource, ResolvedPaymentStateTarget>
>();

function column(
  metadata: EntityMetadata,
  option: string,
  property: string,
  writes: boolean,
): ColumnMetadata {
  const found = metadata.findColumnWithPropertyPath(property);
  if (!found) {
    throw new WebhookConfigurationError(
      unknownTargetProperty(
        metadata.name,
        option,
        property,
        metadata.columns.map((c) => c.propertyPath),
      ),
    );
  }
  if (writes && !found.isUpdate) {
    throw new WebhookConfigurationError(readOnlyTargetColumn(metadata.name, option, property));
  }
  return found;
}

/**
 * The target's columns in `dataSource`, checked once per data source.
 * @throws WebhookConfigurationError when the database is not supported, the entity is not
 * registered, or a property is not a usable column.
 */
export function resolvePaymentStateTarget(
  target: PaymentStateTarget,
  dataSource: DataSource,
): ResolvedPaymentStateTarget {
  const cached = resolvedTargets.get(target)?.get(dataSource);
  if (cached) {
    return cached;
  }
  const type = String(dataSource.options.type);
  if (!SUPPORTED_DATABASES.has(type)) {
    throw new WebhookConfigurationError(unsupportedDatabase(type));
  }
  if (!dataSource.hasMetadata(target.entity)) {
    const name =
      typeof target.entity === 'function'
        ? target.entity.name
        : typeof target.entity === 'string'
          ? target.entity
          : String((target.entity as { name?: unknown }).name ?? 'The entity');
    throw new WebhookConfigurationError(entityNotRegistered(name));
  }
  const metadata = dataSource.getMetadata(target.entity);
  const primaries = metadata.primaryColumns;
  let key: ColumnMetadata;
  if (target.key !== undefined) {
    key = column(metadata, 'key', target.key, false);
  } else if (primaries.length === 1) {
    key = primaries[0];
  } else {
    throw new WebhookConfigurationError(
      keyRequired(
        metadata.name,
        primaries.map((c) => c.propertyPath),
      ),
    );
  }
  const resolved: ResolvedPaymentStateTarget = {
    metadata,
    name: metadata.name,
    key,
    state: column(metadata, 'state', target.state, true),
    ...(target.occurredAt !== undefined && {
      occurredAt: column(metadata, 'occurredAt', target.occurredAt, true),
    }),
    ...(target.version !== undefined && {
      version: column(metadata, 'version', target.version, true),
    }),
  };
  const named = (['key', 'state', 'occurredAt', 'version'] as const).filter(
    (option) => resolved[option] !== undefined,
  );
  for (const [i, first] of named.entries()) {
    for (const second of named.slice(i + 1)) {
      if (resolved[first] === resolved[second]) {
        throw new WebhookConfigurationError(sharedTargetColumn(metadata.name, first, second));
      }
    }
  }
  let perSource = resolvedTargets.get(target);
  if (!perSource) {
    perSource = new WeakMap();
    resolvedTargets.set(target, perSource);
  }
  perSource.set(dataSource, resolved);
  return resolved;
}
