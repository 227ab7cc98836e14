import { WebhookConfigurationError } from '../core/webhook-errors';
import {
  definePaymentStates,
  isPaymentStateMachine,
  PaymentStatesDefinition,
} from './payment-state-machine';
import { paymentStateTarget } from './payment-state-target';

const orderStates = definePaymentStates({
  states: ['pending', 'paid', 'canceled', 'refunded', 'partially_refunded'],
  transitions: {
    pending: ['paid', 'canceled'],
    paid: ['refunded', 'partially_refunded'],
    partially_refunded: ['refunded'],
  },
  events: {
    'payment.succeeded': 'paid',
    'payment.canceled': 'canceled',
    'refund.succeeded': 'refunded',
    'stripe:charge.refunded': 'refunded',
  },
});

/** The error `definePaymentStates()` throws for a definition, checked to be a configuration error. */
function definitionError(definition: unknown): string {
  try {
    definePaymentStates(definition as PaymentStatesDefinition<string>);
  } catch (error) {
    expect(error).toBeInstanceOf(WebhookConfigurationError);
    return (error as Error).message;
  }
  throw new Error('the definition was accepted');
}

describe('definePaymentStates', () => {
  it('answers which moves are allowed, and never paid → pending', () => {
    expect(orderStates.canTransition('pending', 'paid')).toBe(true);
    expect(orderStates.canTransition('pending', 'canceled')).toBe(true);
    expect(orderStates.canTransition('paid', 'refunded')).toBe(true);
    expect(orderStates.canTransition('paid', 'pending')).toBe(false);
    expect(orderStates.canTransition('paid', 'canceled')).toBe(false);
    expect(orderStates.canTransition('paid', 'paid')).toBe(false);
    expect(orderStates.canTransition('refunded', 'paid')).toBe(false);
    expect(orderStates.canTransition('nonsense', 'paid')).toBe(false);
    expect(orderStates.canTransition('pending', 'nonsense')).toBe(false);
  });

  it('lists the states a target is reachable from, empty for the initial state', () => {
    expect(orderStates.allowedFrom('refunded')).toEqual(['paid', 'partially_refunded']);
    expect(orderStates.allowedFrom('paid')).toEqual(['pending']);
    expect(orderStates.allowedFrom('pending')).toEqual([]);
  });

  it('treats asking about an undeclared target as a programming error', () => {
    expect(() => orderStates.allowedFrom('payed' as 'paid')).toThrow(WebhookConfigurationError);
    expect(() => orderStates.allowedFrom('payed' as 'paid')).toThrow(/"payed" is not a state/);
  });

  it('maps event types to states, and nothing for unmapped or inherited names', () => {
    expect(orderStates.targetFor('payment.succeeded')).toBe('paid');
    expect(orderStates.targetFor('stripe:charge.refunded')).toBe('refunded');
    expect(orderStates.targetFor('dispute.opened')).toBeUndefined();
    expect(orderStates.targetFor('toString')).toBeUndefined();
    expect(orderStates.targetFor('__proto__')).toBeUndefined();
  });

  it('defaults the initial state to the first declared one, and accepts another', () => {
    expect(orderStates.initial).toBe('pending');
    const machine = definePaymentStates({
      states: ['created', 'pending', 'paid'],
      transitions: { created: ['pending', 'paid'], pending: ['paid'] },
      initial: 'pending',
    });
    expect(machine.initial).toBe('pending');
  });

  it('is frozen, inside and out', () => {
    expect(Object.isFrozen(orderStates)).toBe(true);
    expect(Object.isFrozen(orderStates.states)).toBe(true);
    expect(Object.isFrozen(orderStates.transitions)).toBe(true);
    expect(Object.isFrozen(orderStates.transitions.pending)).toBe(true);
    expect(Object.isFrozen(orderStates.events)).toBe(true);
    expect(Object.isFrozen(orderStates.allowedFrom('refunded'))).toBe(true);
    expect(isPaymentStateMachine(orderStates)).toBe(true);
    expect(isPaymentStateMachine({ ...orderStates })).toBe(false);
  });

  it('does not share state with the definition it was built from', () => {
    const transitions = { pending: ['paid'] as ('pending' | 'paid')[] };
    const machine = definePaymentStates({ states: ['pending', 'paid'], transitions });
    transitions.pending.push('pending');
    expect(machine.transitions.pending).toEqual(['paid']);
  });

  describe('rejects, naming the fix,', () => {
    it('a definition that is not an object', () => {
      expect(definitionError(undefined)).toMatch(/needs an object such as \{ states/);
    });

    it('missing or empty states', () => {
      expect(definitionError({ transitions: {} })).toMatch(/states must be a non-empty array/);
      expect(definitionError({ states: [], transitions: {} })).toMatch(/non-empty array/);
    });

    it('state names that are not clean strings', () => {
      const message = definitionError({
        states: ['pending', '', ' paid', 3],
        transitions: { pending: [] },
      });
      expect(message).toMatch(/states\[1\] must be a non-empty string/);
      expect(message).toMatch(/states\[2\] must be a non-empty string .*got " paid"/);
      expect(message).toMatch(/states\[3\] must be a non-empty string .*got 3/);
    });

    it('a state declared twice', () => {
      expect(
        definitionError({
          states: ['pending', 'paid', 'paid'],
          transitions: { pending: ['paid'] },
        }),
      ).toMatch(/state "paid" is declared twice/);
    });

    it('a transition from an unknown state', () => {
      expect(
        definitionError({
          states: ['pending', 'paid'],
          transitions: { pending: ['paid'], payed: ['pending'] },
        }),
      ).toMatch(
        /transitions has a key "payed", which is not a declared state \("pending", "paid"\)/,
      );
    });

    it('a transition to an unknown state', () => {
      expect(
        definitionError({ states: ['pending', 'paid'], transitions: { pending: ['payed'] } }),
      ).toMatch(/transitions\.pending leads to "payed", which is not a declared state/);
    });

    it('a self-loop', () => {
      expect(
        definitionError({
          states: ['pending', 'paid'],
          transitions: { pending: ['paid', 'pending'] },
        }),
      ).toMatch(/transitions\.pending lists "pending" itself/);
    });

    it('a target listed twice', () => {
      expect(
        definitionError({
          states: ['pending', 'paid'],
          transitions: { pending: ['paid', 'paid'] },
        }),
      ).toMatch(/transitions\.pending lists "paid" twice/);
    });

    it('targets that are not a list', () => {
      expect(
        definitionError({ states: ['pending', 'paid'], transitions: { pending: 'paid' } }),
      ).toMatch(/transitions\.pending must be an array of states \(got "paid"\)/);
    });

    it('missing transitions, or none at all', () => {
      expect(definitionError({ states: ['pending'] })).toMatch(/transitions must be an object/);
      expect(
        definitionError({ states: ['pending', 'paid'], transitions: { pending: [] } }),
      ).toMatch(/declares no move at all/);
    });

    it('an event mapped to an unknown state', () => {
      expect(
        definitionError({
          states: ['pending', 'paid'],
          transitions: { pending: ['paid'] },
          events: { 'payment.succeeded': 'payed' },
        }),
      ).toMatch(/events\["payment\.succeeded"\] names "payed", which is not a declared state/);
    });

    it('an event mapped to a state no transition leads to', () => {
      expect(
        definitionError({
          states: ['pending', 'paid'],
          transitions: { pending: ['paid'] },
          events: { 'payment.authorized': 'pending' },
        }),
      ).toMatch(
        /events\["payment\.authorized"\] names "pending", but no transition leads to "pending"/,
      );
    });

    it('an event type no event can have', () => {
      const message = definitionError({
        states: ['pending', 'paid'],
        transitions: { pending: ['paid'] },
        events: { 'payment.succeded': 'paid', 'stripe:': 'paid' },
      });
      expect(message).toMatch(
        /the type "payment\.succeded", which no event can have.*payment\.succeeded/,
      );
      expect(message).toMatch(/the type "stripe:"/);
    });

    it('events that are not an object', () => {
      expect(
        definitionError({
          states: ['pending', 'paid'],
          transitions: { pending: ['paid'] },
          events: [],
        }),
      ).toMatch(/events must be an object mapping an event type to a state/);
    });

    it('an undeclared initial state', () => {
      expect(
        definitionError({
          states: ['pending', 'paid'],
          transitions: { pending: ['paid'] },
          initial: 'new',
        }),
      ).toMatch(/initial is "new", which is not a declared state/);
    });

    it('a misspelled option', () => {
      expect(
        definitionError({ states: ['pending', 'paid'], transition: { pending: ['paid'] } }),
      ).toMatch(
        /unknown option "transition": the options are states, transitions, events and initial/,
      );
    });

    it('every problem at once', () => {
      const message = definitionError({
        states: ['pending', 'paid'],
        transitions: { pending: ['paid', 'payed'], paid: ['paid'] },
        events: { 'payment.succeeded': 'done' },
      });
      expect(message.split('\n').filter((line) => line.startsWith('  - '))).toHaveLength(3);
    });
  });
});

describe('paymentStateTarget', () => {
  class Order {
    id!: string;
    status!: string;
    statusChangedAt!: Date | null;
  }

  it('defaults the state property to "state" and is frozen', () => {
    const target = paymentStateTarget(Order, {
      machine: orderStates,
      occurredAt: 'statusChangedAt',
    });
    expect(target).toEqual({
      entity: Order,
      machine: orderStates,
      state: 'state',
      occurredAt: 'statusChangedAt',
    });
    expect(Object.isFrozen(target)).toBe(true);
  });

  it('needs a machine built by definePaymentStates()', () => {
    expect(() =>
      paymentStateTarget(Order, {
        machine: { ...orderStates } as typeof orderStates,
        state: 'status',
      }),
    ).toThrow(/needs the machine returned by definePaymentStates\(\)/);
  });

  it('needs an entity and property names', () => {
    expect(() =>
      paymentStateTarget(undefined as unknown as typeof Order, { machine: orderStates }),
    ).toThrow(/needs the TypeORM entity/);
    expect(() =>
      paymentStateTarget(Order, { machine: orderStates, state: '' as 'status' }),
    ).toThrow(/state must be the name of an entity property/);
  });
});
