/**
 * A W3C trace context (https://www.w3.org/TR/trace-context/) as kept with a stored event: its
 * `traceparent` and, when there is one, its `tracestate`.
 */
export interface StoredTraceContext {
  readonly traceparent: string;
  readonly tracestate?: string;
}

/** What a valid `traceparent` names, with the `tracestate` that came with it. */
export interface TraceParent {
  /** 32 lower-case hex digits, not all zero. */
  readonly traceId: string;
  /** 16 lower-case hex digits, not all zero. */
  readonly spanId: string;
  /** The trace flags (bit 0: sampled). */
  readonly traceFlags: number;
  readonly traceState?: string;
}

/**
 * Version 00 exactly, lower-case hex only, neither id all zeros. A later version's header is
 * refused rather than read in part: what is stored is what the package can vouch for.
 */
const TRACEPARENT = /^00-(?!0{32}-)([0-9a-f]{32})-(?!0{16}-)([0-9a-f]{16})-([0-9a-f]{2})$/;

/** One `tracestate` list member: a simple or a multi-tenant key, `=`, a value of printable ASCII. */
const TRACESTATE_MEMBER =
  /^(?:[a-z][_0-9a-z*/-]{0,255}|[a-z0-9][_0-9a-z*/-]{0,240}@[a-z][_0-9a-z*/-]{0,13})=[\x20-\x2b\x2d-\x3c\x3e-\x7e]{0,255}[\x21-\x2b\x2d-\x3c\x3e-\x7e]$/;

/** The W3C limit on list members. */
const MAX_TRACESTATE_MEMBERS = 32;
/** What every vendor must propagate at least; longer lists lose members from the end. */
export const MAX_TRACESTATE_LENGTH = 512;

/** The parts of a `traceparent` header when it is a valid version-00 one; otherwise undefined. */
export function parseTraceparent(value: string | undefined): TraceParent | undefined {
  const match = value === undefined ? null : TRACEPARENT.exec(value);
  if (!match) {
    return undefined;
  }
  return { traceId: match[1], spanId: match[2], traceFlags: parseInt(match[3], 16) };
}

/**
 * A `tracestate` header made safe to keep: every member valid and each key once, at most 32
 * members and {@link MAX_TRACESTATE_LENGTH} characters (members past that dropped from the end).
 * Undefined when it is empty or any member is invalid: a list that cannot be read is not passed on.
 */
export function boundedTracestate(value: string | undefined): string | undefined {
  if (value === undefined) {
    return undefined;
  }
  const members: string[] = [];
  const keys = new Set<string>();
  for (const part of value.split(',')) {
    const member = part.trim();
    if (member === '') {
      continue;
    }
    const key = member.slice(0, member.indexOf('='));
    if (!TRACESTATE_MEMBER.test(member) || keys.has(key)) {
      return undefined;
    }
    keys.add(key);
    members.push(member);
  }
  let kept = members.slice(0, MAX_TRACESTATE_MEMBERS);
  while (kept.join(',').length > MAX_TRACESTATE_LENGTH) {
    kept = kept.slice(0, -1);
  }
  return kept.length > 0 ? kept.join(',') : undefined;
}

/**
 * The request's own trace context, when its `traceparent` is valid (with its `tracestate`
 * bounded); undefined otherwise.
 * @param headers lower-cased names, as the adapters flatten them.
 */
export function requestTraceContext(
  headers: Readonly<Record<string, string | undefined>>,
): StoredTraceContext | undefined {
  const traceparent = headers.traceparent;
  if (traceparent === undefined || parseTraceparent(traceparent) === undefined) {
    return undefined;
  }
  const tracestate = boundedTracestate(headers.tracestate);
  return tracestate === undefined ? { traceparent } : { traceparent, tracestate };
}

/** The trace context a stored event's headers keep, read as strictly as it was written. */
export function storedTraceParent(
  headers: Readonly<Record<string, string | undefined>> | undefined,
): TraceParent | undefined {
  const parent = parseTraceparent(headers?.traceparent);
  if (parent === undefined) {
    return undefined;
  }
  const traceState = boundedTracestate(headers?.tracestate);
  return traceState === undefined ? parent : { ...parent, traceState };
}

/** `parent` as a version-00 `traceparent` header. */
export function formatTraceparent(parent: Omit<TraceParent, 'traceState'>): string {
  const flags = (parent.traceFlags & 0xff).toString(16).padStart(2, '0');
  return `00-${parent.traceId}-${parent.spanId}-${flags}`;
}
