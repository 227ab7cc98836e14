import { renamedOption, toleranceRename } from '../core/deprecated-options';
import { WebhookConfigurationError } from '../core/webhook-errors';
import {
  invalidHeaderNameMessage,
  invalidJsonPathMessage,
  invalidKindMessage,
  endpointLabel,
  invalidToleranceMessage,
  nonEmptyStringOptionMessage,
} from './providers.messages';

/** How far a signed timestamp may be from the receive time, unless an endpoint says otherwise. */
export const DEFAULT_TOLERANCE_SECONDS = 300;

const KIND = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
// NOTE: RFC 9110 token characters; anything else can never arrive as a header name.
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** A factory's timestamp window, under its name and its name before 1.0. */
export interface ToleranceOptions {
  toleranceSeconds?: number;
  /** @deprecated read until 2.0 as `toleranceSeconds`. */
  tolerance?: number;
}

/**
 * The timestamp window in seconds (default 300), from `toleranceSeconds` or the deprecated
 * `tolerance`, or a startup error.
 * @param where the factory, named in the deprecation warning: `stripeEndpoint()`.
 */
export function resolveTolerance(
  name: unknown,
  kind: string,
  options: ToleranceOptions | undefined,
  where: string,
  fallback = DEFAULT_TOLERANCE_SECONDS,
): number {
  const value = renamedOption(
    options?.toleranceSeconds,
    options?.tolerance,
    toleranceRename(where),
    endpointLabel(name, kind),
  );
  const tolerance = value ?? fallback;
  if (!Number.isSafeInteger(tolerance) || tolerance < 0) {
    throw new WebhookConfigurationError(invalidToleranceMessage(name, kind, value, fallback));
  }
  return tolerance;
}

/** A provider kind usable as the `'<kind>:'` prefix of native types, or a startup error. */
export function resolveKind(name: unknown, value: string | undefined, fallback: string): string {
  const kind = value ?? fallback;
  if (typeof kind !== 'string' || !KIND.test(kind)) {
    throw new WebhookConfigurationError(invalidKindMessage(name, kind));
  }
  return kind;
}

/** A non-empty string option, or a startup error showing an example. */
export function resolveNonEmptyString(
  name: unknown,
  kind: string,
  option: string,
  value: string | undefined,
  fallback: string,
): string {
  const resolved = value ?? fallback;
  if (typeof resolved !== 'string' || resolved.length === 0) {
    throw new WebhookConfigurationError(
      nonEmptyStringOptionMessage(name, kind, option, JSON.stringify(fallback)),
    );
  }
  return resolved;
}

/** A header name lower-cased the way `InboundWebhook.headers` keys are, or a startup error. */
export function resolveHeaderName(
  name: unknown,
  kind: string,
  option: string,
  value: string,
): string {
  if (typeof value !== 'string' || !HEADER_NAME.test(value)) {
    throw new WebhookConfigurationError(invalidHeaderNameMessage(name, kind, option, value));
  }
  return value.toLowerCase();
}

/** A dotted JSON path split into keys, or a startup error. */
export function resolveJsonPath(
  name: unknown,
  kind: string,
  option: string,
  value: string,
): readonly string[] {
  const keys = typeof value === 'string' ? value.split('.') : [];
  if (keys.length === 0 || keys.some((key) => key.length === 0)) {
    throw new WebhookConfigurationError(invalidJsonPathMessage(name, kind, option, value));
  }
  return keys;
}
