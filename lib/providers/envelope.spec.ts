import { WebhookPayloadError } from '../core/webhook-errors';
import { Envelope, EnvelopeRules, checkEnvelope, defineEnvelope } from './envelope';
import { integer, jsonObject, nonEmptyString, optional, string } from './envelope-rules';

const EVENT = defineEnvelope({
  id: nonEmptyString(),
  type: nonEmptyString(),
  created: optional(integer()),
  data: jsonObject(),
});

const VALID = { id: 'evt_1', type: 'payment_intent.succeeded', created: 1700000000, data: {} };

function failure(value: unknown, envelope: Envelope<EnvelopeRules> = EVENT): string {
  try {
    checkEnvelope(envelope, value, 'Test event');
  } catch (error) {
    expect(error).toBeInstanceOf(WebhookPayloadError);
    expect((error as WebhookPayloadError).reason).toBe('invalid_payload');
    return (error as Error).message;
  }
  throw new Error('the envelope was accepted');
}

describe('checkEnvelope', () => {
  it('returns the checked object itself, not a copy', () => {
    const body = JSON.parse(JSON.stringify({ ...VALID, more: { nested: [1, 2] } }));
    const event = checkEnvelope(EVENT, body, 'Test event');
    expect(event).toBe(body);
    expect(event.type).toBe('payment_intent.succeeded');
  });

  it('accepts an optional field that is absent or null, and checks it when present', () => {
    const { created: _created, ...withoutCreated } = VALID;
    expect(checkEnvelope(EVENT, withoutCreated, 'Test event').created).toBeUndefined();
    expect(checkEnvelope(EVENT, { ...VALID, created: null }, 'Test event').created).toBeNull();
    expect(failure({ ...VALID, created: 1.5 })).toBe(
      'Test event is not valid: created must be an integer number',
    );
  });

  it('lists every problem in field order, each rule naming its own in order', () => {
    expect(failure({ id: 7, created: '1700000000' })).toBe(
      'Test event is not valid: id must be a string; type should not be empty; ' +
        'type must be a string; created must be an integer number; data must be an object',
    );
  });

  it('lists at most five problems', () => {
    const wide = defineEnvelope({
      a: string(),
      b: string(),
      c: string(),
      d: string(),
      e: string(),
      f: string(),
      g: string(),
    });
    expect(failure({}, wide)).toBe(
      'Test event is not valid: a must be a string; b must be a string; c must be a string; ' +
        'd must be a string; e must be a string',
    );
    expect(failure({}, EVENT).split('; ')).toHaveLength(5);
  });

  it.each([
    ['null', null],
    ['an array', [VALID]],
    ['a string', JSON.stringify(VALID)],
    ['a number', 7],
    ['undefined', undefined],
  ])('refuses %s instead of an object', (_label, value) => {
    expect(failure(value)).toBe('Test event is not valid: it must be an object');
  });

  it('reads no field from a "__proto__" key, and changes no prototype', () => {
    const hostile = JSON.parse('{"__proto__":{"id":"evt_1","type":"x","data":{}},"constructor":1}');
    expect(failure(hostile)).toMatch(/^Test event is not valid: id should not be empty; /);

    const body = JSON.parse(`{"__proto__":{"polluted":true},${JSON.stringify(VALID).slice(1)}`);
    const event = checkEnvelope(EVENT, body, 'Test event');
    expect(Object.getPrototypeOf(event)).toBe(Object.prototype);
    expect(Object.getOwnPropertyNames(event)).toContain('__proto__');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('counts an inherited field as absent', () => {
    const inherited = Object.assign(Object.create(VALID) as object, { data: {} });
    expect(failure(inherited)).toBe(
      'Test event is not valid: id should not be empty; id must be a string; ' +
        'type should not be empty; type must be a string',
    );
  });
});

describe('defineEnvelope', () => {
  it('is frozen', () => {
    expect(Object.isFrozen(EVENT)).toBe(true);
    expect(Object.isFrozen(EVENT.rules)).toBe(true);
    expect(Object.isFrozen(EVENT.fields)).toBe(true);
    expect(EVENT.fields.every((field) => Object.isFrozen(field))).toBe(true);
  });

  it.each(['constructor', '__proto__', 'toString', 'hasOwnProperty'])(
    'refuses a field named %s, which every object inherits',
    (name) => {
      const rules = Object.defineProperty({}, name, { value: string(), enumerable: true });
      expect(() => defineEnvelope(rules)).toThrow(TypeError);
    },
  );
});
