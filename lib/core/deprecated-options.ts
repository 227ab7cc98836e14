import { WebhookConfigurationError } from './webhook-errors';
import { conflictingRenameMessage, deprecatedOptionMessage } from './deprecated-options.messages';

/** An option renamed in 1.x: the old name is still read until 2.0, with a warning. */
export interface OptionRename {
  /** The old name as the user writes it, e.g. `tolerance`. */
  readonly from: string;
  /** The new name as the user writes it, e.g. `toleranceSeconds` or `api.apiKey`. */
  readonly to: string;
  /** Where the option is given, e.g. `stripeEndpoint()`. */
  readonly where: string;
  /** The unit or shape of the value, said in the warning, e.g. `seconds`. */
  readonly unit?: string;
  /** Stable code of the warning (`NPW_DEP_…`), one per old name. */
  readonly code: string;
}

// NOTE: keyed by code, so an app that builds many endpoints (or tenants) hears of a name once.
const warned = new Set<string>();

/**
 * The value given under the new name, else the one under the old name, which emits a
 * `DeprecationWarning` the first time in the process. Both given with different values is a
 * startup error; with the same value the new name wins quietly but for the warning.
 * @param context names the endpoint or options object in the error.
 * @throws WebhookConfigurationError when both names are given with different values.
 */
export function renamedOption<T>(
  current: T | undefined,
  deprecated: T | undefined,
  rename: OptionRename,
  context: string,
): T | undefined {
  if (deprecated === undefined) return current;
  if (current !== undefined && !sameValue(current, deprecated)) {
    throw new WebhookConfigurationError(conflictingRenameMessage(rename, context));
  }
  warnOnce(rename);
  return current ?? deprecated;
}

/** Emits the deprecation warning of an old name, the first time in the process only. */
export function warnOnce(rename: OptionRename): void {
  if (warned.has(rename.code)) return;
  warned.add(rename.code);
  process.emitWarning(deprecatedOptionMessage(rename), {
    type: 'DeprecationWarning',
    code: rename.code,
  });
}

function sameValue(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  if (Array.isArray(a) && Array.isArray(b)) {
    return a.length === b.length && a.every((item, index) => sameValue(item, b[index]));
  }
  if (isPlainObject(a) && isPlainObject(b)) {
    const keys = Object.keys(a);
    return (
      keys.length === Object.keys(b).length &&
      keys.every((key) => Object.prototype.hasOwnProperty.call(b, key) && sameValue(a[key], b[key]))
    );
  }
  return false;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `tolerance` → `toleranceSeconds`, in the factory named. */
export function toleranceRename(where: string): OptionRename {
  return {
    from: 'tolerance',
    to: 'toleranceSeconds',
    where,
    unit: 'seconds',
    code: 'NPW_DEP_TOLERANCE',
  };
}

/** `ttl` → `ttlMs` or `lease` → `leaseMs`, in `@Idempotent()` or `IdempotentCall.run()`. */
export function idempotencyRename(where: string, from: 'ttl' | 'lease'): OptionRename {
  const scope = where.startsWith('@') ? 'IDEMPOTENT' : 'IDEMPOTENT_CALL';
  return {
    from,
    to: `${from}Ms`,
    where,
    unit: 'milliseconds',
    code: `NPW_DEP_${scope}_${from.toUpperCase()}`,
  };
}

/**
 * API options once given flat on a factory and now under `api: {…}`: the `api` object with each
 * flat value read into it (each flat name warning once), or undefined when neither is given.
 * @param codePrefix the warnings' code before the option's name: `NPW_DEP_MOLLIE`.
 * @throws WebhookConfigurationError when a field is given in both places with different values.
 */
export function movedIntoApi<A extends object>(
  flat: Partial<A> | undefined,
  api: Partial<A> | undefined,
  fields: readonly (keyof A & string)[],
  where: string,
  codePrefix: string,
  context: string,
): Partial<A> | undefined {
  const moved: Partial<A> = { ...api };
  let given = api !== undefined;
  for (const field of fields) {
    const value = renamedOption(
      api?.[field],
      flat?.[field],
      {
        from: field,
        to: `api.${field}`,
        where,
        unit: field.endsWith('Ms') ? 'milliseconds, now under `api`' : 'now under `api`',
        code: `${codePrefix}_${field.replace(/[A-Z]/g, (c) => `_${c}`).toUpperCase()}`,
      },
      context,
    );
    if (value !== undefined) {
      moved[field] = value;
      given = true;
    }
  }
  return given ? moved : undefined;
}
