import { WebhookPayloadError } from '../core/webhook-errors';
import { JsonObject, isJsonObject } from './parse-payload';

/** More problems than this are left out of an error: the first few say what is wrong. */
const MAX_LISTED_PROBLEMS = 5;

/**
 * What one envelope field must hold. A valid delivery only meets `accepts`; `problems` runs for
 * a refused one, to say why.
 */
export interface FieldRule<T> {
  /** True when `value` may be the field's value (`undefined` when the field is absent). */
  readonly accepts: (value: unknown) => value is T;
  /** Why `value` is refused, one text per problem, each naming the field as `name`. */
  readonly problems: (value: unknown, name: string) => readonly string[];
}

/** The rules of an envelope, by field name. */
export type EnvelopeRules = Readonly<Record<string, FieldRule<unknown>>>;

/** The rules of the top-level fields a provider reads, in the order their problems are listed. */
export interface Envelope<R extends EnvelopeRules> {
  readonly rules: R;
  /** NOTE: `rules` as a list, made once, so a check looks up no rule by its name. */
  readonly fields: readonly EnvelopeField[];
}

/** One field of an envelope and its rule. */
export interface EnvelopeField {
  readonly name: string;
  readonly rule: FieldRule<unknown>;
}

/** A JSON object whose envelope fields have passed their rules, typed by them. */
export type Checked<E> =
  E extends Envelope<infer R>
    ? JsonObject & { readonly [K in keyof R]: R[K] extends FieldRule<infer T> ? T : never }
    : never;

/**
 * Describes an envelope once, at load time.
 * @throws TypeError for a field named like a property every object inherits (`constructor`,
 * `__proto__`, `toString`…): the checked object is the parsed one, whose prototype answers for
 * such a name when the body leaves it out.
 * @example
 * const STRIPE_EVENT = defineEnvelope({
 *   id: nonEmptyString(),
 *   created: optional(integer()),
 *   data: jsonObject(),
 * });
 */
export function defineEnvelope<R extends EnvelopeRules>(rules: R): Envelope<R> {
  const fields = Object.entries(rules).map(([name, rule]) => Object.freeze({ name, rule }));
  const inherited = fields.find(({ name }) => name in Object.prototype);
  if (inherited !== undefined) {
    throw new TypeError(
      `Envelope field ${JSON.stringify(inherited.name)} is a name objects inherit`,
    );
  }
  return Object.freeze({ rules: Object.freeze({ ...rules }), fields: Object.freeze(fields) });
}

/**
 * Checks the top-level fields of `value` against `envelope` and returns `value` itself, typed.
 * Nothing is copied: what a provider reads afterwards is the JSON parsed from the bytes, and no
 * key of the body (`__proto__`, `constructor`) is ever written anywhere.
 * @param what names the envelope in the error, e.g. `'Stripe event'`.
 * @throws WebhookPayloadError when `value` is not a JSON object, or listing the first few
 * problems: `Stripe event is not valid: id should not be empty; id must be a string`.
 */
export function checkEnvelope<R extends EnvelopeRules>(
  envelope: Envelope<R>,
  value: unknown,
  what: string,
): Checked<Envelope<R>> {
  if (!isJsonObject(value)) {
    throw new WebhookPayloadError(`${what} is not valid: it must be an object`);
  }
  for (const field of envelope.fields) {
    if (!field.rule.accepts(ownField(value, field.name))) {
      throw new WebhookPayloadError(`${what} is not valid: ${listProblems(envelope, value)}`);
    }
  }
  return value as Checked<Envelope<R>>;
}

function listProblems(envelope: Envelope<EnvelopeRules>, value: JsonObject): string {
  const problems = envelope.fields.flatMap(({ name, rule }) =>
    rule.problems(ownField(value, name), name),
  );
  return problems.slice(0, MAX_LISTED_PROBLEMS).join('; ');
}

/** NOTE: own properties only, so a field the body leaves out is absent whatever the prototype. */
function ownField(object: JsonObject, name: string): unknown {
  return Object.hasOwn(object, name) ? object[name] : undefined;
}
