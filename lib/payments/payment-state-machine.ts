import { isPaymentEventType, PAYMENT_EVENT_TYPES } from '../core/payment-event-types';
import { WebhookConfigurationError } from '../core/webhook-errors';
import type { PaymentEvent } from '../handlers/payment-event.interface';
import {
  duplicateState,
  duplicateTarget,
  eventsNotAnObject,
  eventToUnknownState,
  eventToUnreachableState,
  invalidMachineMessage,
  invalidStateName,
  MACHINE_NOT_AN_OBJECT,
  NO_TRANSITIONS,
  selfTransition,
  STATES_REQUIRED,
  targetsNotAList,
  TRANSITIONS_REQUIRED,
  undeclaredTargetState,
  unknownEventType,
  unknownFromState,
  unknownInitialState,
  unknownMachineOption,
  unknownToState,
} from './payments.messages';

/** An event type a machine can map: a normalized type, or a provider's `'<kind>:<native>'`. */
export type PaymentStateEventType = PaymentEvent['type'];

/**
 * The states of a payment (or order), the moves between them, and which events drive which
 * move. Given to `definePaymentStates()`.
 */
export interface PaymentStatesDefinition<S extends string> {
  /** Every state a row can be in, e.g. `['pending', 'paid', 'canceled', 'refunded']`. */
  readonly states: readonly S[];
  /**
   * For each state, the states it may move to. A state left out (or given `[]`) is final.
   * A state never moves to itself.
   * @example `{ pending: ['paid', 'canceled'], paid: ['refunded', 'partially_refunded'] }`
   */
  readonly transitions: { readonly [From in NoInfer<S>]?: readonly NoInfer<S>[] };
  /**
   * Which event types drive which state, for `applyPaymentEvent()`. Map only types whose target
   * does not depend on the payload (`dispute.closed` may mean won or lost: call `transition()`
   * for it). A type left out is `ignored` by `applyPaymentEvent()`.
   * @default {}
   * @example `{ 'payment.succeeded': 'paid', 'payment.canceled': 'canceled' }`
   */
  readonly events?: { readonly [Type in PaymentStateEventType]?: NoInfer<S> };
  /**
   * The state new rows start in; informative (the helper never inserts rows).
   * @default the first of `states`
   */
  readonly initial?: NoInfer<S>;
}

/**
 * A validated, frozen payment state machine, built by `definePaymentStates()`. It only answers
 * questions; `transition()` and `applyPaymentEvent()` apply it to rows.
 */
export interface PaymentStateMachine<S extends string = string> {
  /** The declared states, in declaration order. */
  readonly states: readonly S[];
  /** The state new rows start in. */
  readonly initial: S;
  /** Every state with the states it may move to (`[]` for a final state). */
  readonly transitions: Readonly<Record<S, readonly S[]>>;
  /** Event type → the state it drives. */
  readonly events: Readonly<Partial<Record<PaymentStateEventType, S>>>;
  /** True when `value` is one of the declared states. */
  isState(value: unknown): value is S;
  /** True when a row in `from` may move to `to`; false for undeclared states. */
  canTransition(from: string, to: string): boolean;
  /**
   * The states a row may be in to move to `to` (empty when no transition leads there).
   * @throws WebhookConfigurationError when `to` is not a declared state.
   */
  allowedFrom(to: S): readonly S[];
  /** The state an event of this type drives, or `undefined` when the type is not mapped. */
  targetFor(eventType: string): S | undefined;
}

const OPTIONS = new Set(['states', 'transitions', 'events', 'initial']);

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A type events can carry: normalized, or `'<kind>:<native>'` with both parts non-empty. */
function isEventTypeName(type: string): boolean {
  const colon = type.indexOf(':');
  return isPaymentEventType(type) || (colon > 0 && colon < type.length - 1);
}

class DefinedPaymentStateMachine<S extends string> implements PaymentStateMachine<S> {
  readonly states: readonly S[];
  readonly initial: S;
  readonly transitions: Readonly<Record<S, readonly S[]>>;
  readonly events: Readonly<Partial<Record<PaymentStateEventType, S>>>;
  private readonly sources: ReadonlyMap<S, readonly S[]>;

  constructor(
    states: readonly S[],
    initial: S,
    transitions: Record<S, readonly S[]>,
    events: Partial<Record<PaymentStateEventType, S>>,
  ) {
    this.states = Object.freeze([...states]);
    this.initial = initial;
    this.transitions = Object.freeze(transitions);
    this.events = Object.freeze(events);
    const sources = new Map<S, readonly S[]>(
      states.map((to) => [
        to,
        Object.freeze(states.filter((from) => transitions[from].includes(to))),
      ]),
    );
    this.sources = sources;
    Object.freeze(this);
  }

  isState(value: unknown): value is S {
    return typeof value === 'string' && this.sources.has(value as S);
  }

  canTransition(from: string, to: string): boolean {
    return this.isState(from) && this.isState(to) && this.transitions[from].includes(to);
  }

  allowedFrom(to: S): readonly S[] {
    const sources = this.sources.get(to);
    if (sources === undefined) {
      throw new WebhookConfigurationError(undeclaredTargetState(to, this.states));
    }
    return sources;
  }

  targetFor(eventType: string): S | undefined {
    return Object.prototype.hasOwnProperty.call(this.events, eventType)
      ? this.events[eventType as PaymentStateEventType]
      : undefined;
  }
}

/** True when `value` was built by `definePaymentStates()`. */
export function isPaymentStateMachine(value: unknown): value is PaymentStateMachine {
  return value instanceof DefinedPaymentStateMachine;
}

/**
 * Declares the states of a payment (or order), the allowed moves between them and which event
 * types drive which move. Checked once, here: every problem found is listed in one error.
 *
 * @throws WebhookConfigurationError when a state is unknown, duplicated or moves to itself, an
 * event maps to an unknown or unreachable state, or an option is misspelled.
 * @example
 * ```ts
 * export const orderStates = definePaymentStates({
 *   states: ['pending', 'paid', 'canceled', 'refunded', 'partially_refunded'],
 *   transitions: {
 *     pending: ['paid', 'canceled'],
 *     paid: ['refunded', 'partially_refunded'],
 *     partially_refunded: ['refunded'],
 *   },
 *   events: {
 *     'payment.succeeded': 'paid',
 *     'payment.canceled': 'canceled',
 *     'refund.succeeded': 'refunded',
 *   },
 * });
 * ```
 */
export function definePaymentStates<const S extends string>(
  definition: PaymentStatesDefinition<S>,
): PaymentStateMachine<S> {
  if (!isRecord(definition)) {
    throw new WebhookConfigurationError(MACHINE_NOT_AN_OBJECT);
  }
  const problems: string[] = Object.keys(definition)
    .filter((option) => !OPTIONS.has(option))
    .map(unknownMachineOption);
  const states = statesOf<S>(definition.states, problems);
  const transitions = transitionsOf(definition.transitions, states, problems);
  const events = eventsOf(definition.events, states, transitions, problems);
  const initial: unknown = definition.initial === undefined ? states[0] : definition.initial;
  if (definition.initial !== undefined && !states.includes(initial as S)) {
    problems.push(unknownInitialState(initial, states));
  }
  if (problems.length > 0) {
    throw new WebhookConfigurationError(invalidMachineMessage(problems));
  }
  const frozen = Object.fromEntries(
    states.map((state) => [state, Object.freeze([...transitions[state]])]),
  ) as Record<S, readonly S[]>;
  return new DefinedPaymentStateMachine(states, initial as S, frozen, events);
}

/** The declared states, each a unique non-blank name; what is wrong goes to `problems`. */
function statesOf<S extends string>(rawStates: unknown, problems: string[]): S[] {
  const states: S[] = [];
  if (!Array.isArray(rawStates) || rawStates.length === 0) {
    problems.push(STATES_REQUIRED);
    return states;
  }
  rawStates.forEach((state: unknown, index) => {
    if (typeof state !== 'string' || state === '' || state.trim() !== state) {
      problems.push(invalidStateName(index, state));
    } else if (states.includes(state as S)) {
      problems.push(duplicateState(state));
    } else {
      states.push(state as S);
    }
  });
  return states;
}

/** The allowed moves from each state, between declared states only. */
function transitionsOf<S extends string>(
  rawTransitions: unknown,
  states: readonly S[],
  problems: string[],
): Record<S, S[]> {
  const declared = (value: unknown): value is S =>
    typeof value === 'string' && states.includes(value as S);
  const transitions = Object.fromEntries(states.map((state) => [state, [] as S[]])) as Record<
    S,
    S[]
  >;
  if (!isRecord(rawTransitions)) {
    problems.push(TRANSITIONS_REQUIRED);
    return transitions;
  }
  for (const [from, targets] of Object.entries(rawTransitions)) {
    if (!declared(from)) {
      problems.push(unknownFromState(from, states));
    } else if (!Array.isArray(targets)) {
      problems.push(targetsNotAList(from, targets));
    } else {
      for (const to of targets as unknown[]) {
        if (!declared(to)) {
          problems.push(unknownToState(from, to, states));
        } else if (to === from) {
          problems.push(selfTransition(from));
        } else if (transitions[from].includes(to)) {
          problems.push(duplicateTarget(from, to));
        } else {
          transitions[from].push(to);
        }
      }
    }
  }
  const none = states.length > 0 && states.every((state) => transitions[state].length === 0);
  if (none && problems.length === 0) {
    problems.push(NO_TRANSITIONS);
  }
  return transitions;
}

/** The state each event type moves a payment to: a declared state some transition reaches. */
function eventsOf<S extends string>(
  rawEvents: unknown,
  states: readonly S[],
  transitions: Record<S, S[]>,
  problems: string[],
): Partial<Record<PaymentStateEventType, S>> {
  const events: Partial<Record<PaymentStateEventType, S>> = {};
  if (rawEvents === undefined) {
    return events;
  }
  if (!isRecord(rawEvents)) {
    problems.push(eventsNotAnObject(rawEvents));
    return events;
  }
  const reachable = new Set(states.flatMap((state) => transitions[state]));
  for (const [type, to] of Object.entries(rawEvents)) {
    if (!isEventTypeName(type)) {
      problems.push(unknownEventType(type, PAYMENT_EVENT_TYPES));
    } else if (typeof to !== 'string' || !states.includes(to as S)) {
      problems.push(eventToUnknownState(type, to, states));
    } else if (!reachable.has(to as S)) {
      problems.push(eventToUnreachableState(type, to));
    } else {
      events[type as PaymentStateEventType] = to as S;
    }
  }
  return events;
}
