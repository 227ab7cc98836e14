import { isCurrencyCode } from '../core/currency-codes';
import type { FieldRule } from './envelope';
import { JsonObject, isJsonObject, toIdentifier } from './parse-payload';

/** One condition of a rule, and how its refusal reads after the field's name. */
interface Condition {
  readonly holds: (value: unknown) => boolean;
  readonly problem: string;
}

// NOTE: the wording is class-validator's, which checked envelopes before: journals, logs and
// 400 answers read as they did.
const NOT_EMPTY: Condition = {
  holds: (value) => value !== '' && value !== null && value !== undefined,
  problem: 'should not be empty',
};
const A_STRING: Condition = {
  holds: (value) => typeof value === 'string',
  problem: 'must be a string',
};
const AN_INTEGER: Condition = {
  holds: (value) => typeof value === 'number' && Number.isInteger(value),
  problem: 'must be an integer number',
};
const A_BOOLEAN: Condition = {
  holds: (value) => typeof value === 'boolean',
  problem: 'must be a boolean value',
};
const AN_OBJECT: Condition = { holds: isJsonObject, problem: 'must be an object' };
const AN_ARRAY: Condition = { holds: Array.isArray, problem: 'must be an array' };
const NOT_EMPTY_ARRAY: Condition = {
  holds: (value) => Array.isArray(value) && value.length > 0,
  problem: 'should not be empty',
};
const AN_IDENTIFIER: Condition = {
  holds: (value) => toIdentifier(value) !== undefined,
  problem: 'must be a non-empty string or an integer',
};
const A_CURRENCY_CODE: Condition = {
  holds: (value) => typeof value === 'string' && isCurrencyCode(value),
  problem: 'must be a valid ISO4217 currency code',
};

/** A rule that accepts a value meeting every condition, and names each one it does not meet. */
function ruleOf<T>(...conditions: readonly Condition[]): FieldRule<T> {
  return Object.freeze({
    accepts: (value: unknown): value is T => {
      for (const condition of conditions) {
        if (!condition.holds(value)) return false;
      }
      return true;
    },
    problems: (value: unknown, name: string) =>
      conditions
        .filter((condition) => !condition.holds(value))
        .map((condition) => `${name} ${condition.problem}`),
  });
}

/** A string, possibly empty. */
export function string(): FieldRule<string> {
  return ruleOf(A_STRING);
}

/** A string of at least one character. */
export function nonEmptyString(): FieldRule<string> {
  return ruleOf(NOT_EMPTY, A_STRING);
}

/** An integer (as JSON numbers go: `1e3` is one, `1.5` is not). */
export function integer(): FieldRule<number> {
  return ruleOf(AN_INTEGER);
}

/** `true` or `false`. */
export function boolean(): FieldRule<boolean> {
  return ruleOf(A_BOOLEAN);
}

/** A JSON object: not an array, not null. */
export function jsonObject(): FieldRule<JsonObject> {
  return ruleOf(AN_OBJECT);
}

/** An array of at least one element, of any kind. */
export function nonEmptyArray(): FieldRule<readonly unknown[]> {
  return ruleOf(NOT_EMPTY_ARRAY, AN_ARRAY);
}

/** An id: a non-empty string, or an integer JSON carries exactly (see `toIdentifier`). */
export function identifier(): FieldRule<string | number> {
  return ruleOf(AN_IDENTIFIER);
}

/** An ISO 4217 alphabetic code, in any case. */
export function currencyCode(): FieldRule<string> {
  return ruleOf(A_CURRENCY_CODE);
}

/** Exactly one of `values` (compared with `===`). */
export function oneOf<const T extends readonly (string | number | boolean)[]>(
  ...values: T
): FieldRule<T[number]> {
  return ruleOf({
    holds: (value) => values.some((allowed) => allowed === value),
    problem: `must be one of the following values: ${values.join(', ')}`,
  });
}

/** Exactly `expected`. */
export function equalTo<const T extends string | number | boolean>(expected: T): FieldRule<T> {
  return ruleOf({
    holds: (value) => value === expected,
    problem: `must be ${JSON.stringify(expected)}`,
  });
}

/**
 * `rule`, or nothing: an absent field and `null` pass unchecked, and stay what they were.
 * @example created: optional(integer())
 */
export function optional<T>(rule: FieldRule<T>): FieldRule<T | null | undefined> {
  return Object.freeze({
    accepts: (value: unknown): value is T | null | undefined =>
      value === undefined || value === null || rule.accepts(value),
    problems: (value: unknown, name: string) =>
      value === undefined || value === null ? [] : rule.problems(value, name),
  });
}

/**
 * `rule` with its problems naming the field as `label`, for a field whose key is no name a
 * reader knows (one the provider assembles from a header or a path).
 * @example eventId: named('the event id', optional(identifier()))
 */
export function named<T>(label: string, rule: FieldRule<T>): FieldRule<T> {
  return Object.freeze({
    accepts: rule.accepts,
    problems: (value: unknown) => rule.problems(value, label),
  });
}
