/**
 * Texts of the payment state helpers. Errors say what is wrong and how to fix it; log lines say
 * why a payment was left unchanged.
 */

function quote(value: unknown): string {
  return typeof value === 'string' ? `"${value}"` : String(value);
}

function list(values: readonly string[]): string {
  return values.length === 0 ? 'none' : values.map(quote).join(', ');
}

/** The whole definition, listing every problem found in it. */
export function invalidMachineMessage(problems: readonly string[]): string {
  return (
    'definePaymentStates(): the state machine is invalid:\n' +
    problems.map((problem) => `  - ${problem}`).join('\n')
  );
}

/** The definition is not an object. */
export const MACHINE_NOT_AN_OBJECT =
  "definePaymentStates() needs an object such as { states: ['pending', 'paid'], " +
  "transitions: { pending: ['paid'] } }.";

/** A top-level option nobody reads (usually a typo). */
export function unknownMachineOption(option: string): string {
  return `unknown option ${quote(option)}: the options are states, transitions, events and initial.`;
}

/** `states` is missing, empty or not an array. */
export const STATES_REQUIRED =
  "states must be a non-empty array of state names, e.g. states: ['pending', 'paid', 'canceled'].";

/** A state name that cannot be stored or compared reliably. */
export function invalidStateName(index: number, value: unknown): string {
  return (
    `states[${index}] must be a non-empty string without surrounding spaces ` +
    `(got ${quote(value)}).`
  );
}

/** The same state is declared twice. */
export function duplicateState(state: string): string {
  return `state ${quote(state)} is declared twice in states: list each state once.`;
}

/** `transitions` is missing or not an object. */
export const TRANSITIONS_REQUIRED =
  "transitions must be an object mapping a state to the states it may move to, e.g. transitions: { pending: ['paid', 'canceled'] }.";

/** No state has any outgoing transition. */
export const NO_TRANSITIONS =
  'transitions declares no move at all, so no payment could ever change state: ' +
  "list at least one, e.g. pending: ['paid'].";

/** A transition starts in a state that is not declared. */
export function unknownFromState(from: string, states: readonly string[]): string {
  return (
    `transitions has a key ${quote(from)}, which is not a declared state (${list(states)}): ` +
    'fix the spelling or add it to states.'
  );
}

/** A transition's list of targets is not an array. */
export function targetsNotAList(from: string, value: unknown): string {
  return (
    `transitions.${from} must be an array of states (got ${quote(value)}), ` +
    `e.g. ${from}: ['paid'], or [] for a final state.`
  );
}

/** A transition leads to a state that is not declared. */
export function unknownToState(from: string, to: unknown, states: readonly string[]): string {
  return (
    `transitions.${from} leads to ${quote(to)}, which is not a declared state (${list(states)}): ` +
    'fix the spelling or add it to states.'
  );
}

/** A state moves to itself. */
export function selfTransition(state: string): string {
  return (
    `transitions.${state} lists ${quote(state)} itself: a payment already in a state cannot ` +
    'move into it again, so remove it (a repeated event for that state is reported as not_allowed).'
  );
}

/** A target is listed twice for one state. */
export function duplicateTarget(from: string, to: string): string {
  return `transitions.${from} lists ${quote(to)} twice: list each target once.`;
}

/** `events` is not an object. */
export function eventsNotAnObject(value: unknown): string {
  return (
    `events must be an object mapping an event type to a state (got ${quote(value)}), ` +
    "e.g. events: { 'payment.succeeded': 'paid' }."
  );
}

/** An event key that no event can ever have. */
export function unknownEventType(type: string, normalized: readonly string[]): string {
  return (
    `events has the type ${quote(type)}, which no event can have: use a normalized type ` +
    `(${normalized.join(', ')}) or a provider's native type as "<kind>:<native>", e.g. "stripe:charge.refunded".`
  );
}

/** An event drives a state that is not declared. */
export function eventToUnknownState(type: string, to: unknown, states: readonly string[]): string {
  return (
    `events[${quote(type)}] names ${quote(to)}, which is not a declared state (${list(states)}): ` +
    'fix the spelling or add it to states.'
  );
}

/** An event drives a state no transition leads to: it could never apply. */
export function eventToUnreachableState(type: string, to: string): string {
  return (
    `events[${quote(type)}] names ${quote(to)}, but no transition leads to ${quote(to)}, so the ` +
    `event could never change a payment: add ${quote(to)} to the targets of the states it may ` +
    'follow, or remove the mapping.'
  );
}

/** `initial` is not a declared state. */
export function unknownInitialState(initial: unknown, states: readonly string[]): string {
  return `initial is ${quote(initial)}, which is not a declared state (${list(states)}).`;
}

/** `allowedFrom()` or `transition()` was asked about a state the machine does not declare. */
export function undeclaredTargetState(to: unknown, states: readonly string[]): string {
  return (
    `${quote(to)} is not a state of this payment state machine (${list(states)}): ` +
    'pass one of its states, or add it to definePaymentStates({ states }).'
  );
}

/** `from` names a state the machine does not allow for `to`. */
export function fromNotAllowed(from: unknown, to: string, allowed: readonly string[]): string {
  return (
    `transition to ${quote(to)} with from ${quote(from)}: the state machine allows ${quote(to)} ` +
    `only from ${list(allowed)}; narrow from to those states or add the transition to the machine.`
  );
}

/** `from` is an empty list. */
export function emptyFrom(to: string, allowed: readonly string[]): string {
  return (
    `transition to ${quote(to)} with from []: an empty list allows no state; leave from out ` +
    `to allow every state the machine allows (${list(allowed)}), or name some of them.`
  );
}

/** `paymentStateTarget()` was given something that is not a machine. */
export const TARGET_NEEDS_MACHINE =
  'paymentStateTarget(Entity, { machine }) needs the machine returned by definePaymentStates().';

/** `paymentStateTarget()` was given no entity. */
export const TARGET_NEEDS_ENTITY =
  'paymentStateTarget(Entity, options) needs the TypeORM entity (class, schema or name) whose ' +
  'rows hold the state, e.g. paymentStateTarget(Order, { machine }).';

/** A property option is not a non-empty string. */
export function targetPropertyNotAString(option: string, value: unknown): string {
  return (
    `paymentStateTarget(): ${option} must be the name of an entity property ` +
    `(got ${quote(value)}), e.g. ${option}: 'status'.`
  );
}

/** The entity is not registered in the data source. */
export function entityNotRegistered(entity: string): string {
  return (
    `${entity} is not an entity of this data source: add it to the data source's entities ` +
    '(or TypeOrmModule.forFeature()) before moving its payments between states.'
  );
}

/** A property named in the target is not a column of the entity. */
export function unknownTargetProperty(
  entity: string,
  option: string,
  property: string,
  properties: readonly string[],
): string {
  return (
    `paymentStateTarget(${entity}): ${option} names the property ${quote(property)}, which is not a ` +
    `column of ${entity} (columns: ${list(properties)}).`
  );
}

/** The entity has no single primary column and no `key` was given. */
export function keyRequired(entity: string, primaries: readonly string[]): string {
  return (
    `paymentStateTarget(${entity}): the entity has ${primaries.length} primary columns ` +
    `(${list(primaries)}), so rows cannot be found by one id: set key to a unique property.`
  );
}

/** Two target options name one column. */
export function sharedTargetColumn(entity: string, first: string, second: string): string {
  return (
    `paymentStateTarget(${entity}): ${first} and ${second} name the same column; ` +
    'each needs its own column.'
  );
}

/** A column the helper must write is declared `update: false`. */
export function readOnlyTargetColumn(entity: string, option: string, property: string): string {
  return (
    `paymentStateTarget(${entity}): ${option} names ${quote(property)}, a column declared ` +
    'with update: false, so the transition could not write it: allow updates on that column.'
  );
}

/** The data source is neither PostgreSQL nor SQLite. */
export function unsupportedDatabase(type: string): string {
  return (
    `Payment state transitions run on PostgreSQL ("postgres") or SQLite ("better-sqlite3"); ` +
    `this entity manager belongs to a "${type}" data source.`
  );
}

/** A guard value was given for a target that has no column for it. */
export function guardWithoutColumn(entity: string, option: 'occurredAt' | 'version'): string {
  return (
    `transition(): ${option} was given, but the target for ${entity} has no ${option} column: ` +
    `set ${option} in paymentStateTarget(${entity}, { ${option}: '<property>' }) or leave it out.`
  );
}

/** `occurredAt` is not a valid date. */
export function invalidOccurredAt(value: unknown): string {
  return `transition(): occurredAt must be a valid Date, or null (got ${quote(value)}).`;
}

/** `version` is not a safe integer. */
export function invalidVersion(value: unknown): string {
  return `transition(): version must be a safe integer, or null (got ${quote(value)}).`;
}

/** `id` is missing. */
export function invalidId(value: unknown): string {
  return `transition(): id must be a string or a number (got ${quote(value)}).`;
}

/** The key matched more than one row: the change is rolled back with the caller's transaction. */
export function keyNotUnique(entity: string, key: string, count: number): string {
  return (
    `transition(): ${entity}.${key} matched ${count} rows, so the change was not confined to one ` +
    `payment; throwing so that the caller's transaction rolls back. Make ${key} unique, or ` +
    'use the primary key.'
  );
}

/** The row kept moving between the update and the read that explains why it did not apply. */
export function keptChanging(entity: string, id: unknown, to: string, attempts: number): string {
  return (
    `transition(): ${entity} ${quote(id)} changed state ${attempts} times while being moved to ` +
    `${quote(to)}; giving up so that the caller's transaction can be retried.`
  );
}

/** The log line of a transition that was not applied. */
export function notAppliedMessage(
  entity: string,
  id: unknown,
  to: string,
  outcome: 'not_allowed' | 'stale' | 'not_found',
  detail: { from?: string; allowedFrom: readonly string[]; staleBy?: 'occurredAt' | 'version' },
): string {
  const subject = `${entity} ${quote(id)}`;
  switch (outcome) {
    case 'not_found':
      return `${subject} does not exist; not moved to ${quote(to)}.`;
    case 'stale':
      return (
        `${subject} stays ${quote(detail.from)}: the move to ${quote(to)} is older than its current ` +
        `state (by ${detail.staleBy}).`
      );
    case 'not_allowed':
      return detail.allowedFrom.length === 0
        ? `${subject} stays ${quote(detail.from)}: no transition leads to ${quote(to)}.`
        : `${subject} stays ${quote(detail.from)}: ${quote(to)} is allowed only from ` +
            `${list(detail.allowedFrom)}.`;
  }
}

/** The log line of an event that carries no id for the target. */
export function eventWithoutId(to: string): string {
  return `no payment id in the event; not moved to ${quote(to)}.`;
}
