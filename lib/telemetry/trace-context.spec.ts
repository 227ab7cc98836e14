import {
  boundedTracestate,
  formatTraceparent,
  MAX_TRACESTATE_LENGTH,
  parseTraceparent,
  requestTraceContext,
  storedTraceParent,
} from './trace-context';

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const SPAN_ID = '00f067aa0ba902b7';
const VALID = `00-${TRACE_ID}-${SPAN_ID}-01`;

describe('parseTraceparent', () => {
  it('reads a version-00 traceparent', () => {
    expect(parseTraceparent(VALID)).toEqual({ traceId: TRACE_ID, spanId: SPAN_ID, traceFlags: 1 });
    expect(parseTraceparent(`00-${TRACE_ID}-${SPAN_ID}-00`)?.traceFlags).toBe(0);
  });

  it.each([
    ['no header', undefined],
    ['upper-case hex', VALID.toUpperCase()],
    ['another version', `01-${TRACE_ID}-${SPAN_ID}-01`],
    ['the forbidden version', `ff-${TRACE_ID}-${SPAN_ID}-01`],
    ['a later version with more fields', `01-${TRACE_ID}-${SPAN_ID}-01-extra`],
    ['version 00 with more fields', `${VALID}-extra`],
    ['an all-zero trace id', `00-${'0'.repeat(32)}-${SPAN_ID}-01`],
    ['an all-zero span id', `00-${TRACE_ID}-${'0'.repeat(16)}-01`],
    ['a short trace id', `00-${TRACE_ID.slice(1)}-${SPAN_ID}-01`],
    ['spaces around it', ` ${VALID} `],
    ['two headers joined', `${VALID}, ${VALID}`],
    ['a line break after it', `${VALID}\n`],
  ])('refuses %s', (_case, value) => {
    expect(parseTraceparent(value)).toBeUndefined();
  });

  it('writes back what it reads', () => {
    expect(formatTraceparent(parseTraceparent(VALID)!)).toBe(VALID);
  });
});

describe('boundedTracestate', () => {
  it('keeps valid members, simple and multi-tenant, without the spaces around them', () => {
    expect(boundedTracestate('congo=t61rcWkgMzE, rojo@vendor=00f067aa0ba902b7 ,,')).toBe(
      'congo=t61rcWkgMzE,rojo@vendor=00f067aa0ba902b7',
    );
  });

  it.each([
    ['a key with upper case', 'Congo=1'],
    ['a member without a value', 'congo='],
    ['a value holding "="', 'congo=a=b'],
    ['a member without a key', '=1'],
    ['a key too long', `${'k'.repeat(257)}=1`],
    ['a control character', 'congo=a\u0001b'],
    ['a key twice', 'congo=1,congo=2'],
    ['nothing but commas', ' , ,'],
  ])('drops the whole list with %s', (_case, value) => {
    expect(boundedTracestate(value)).toBeUndefined();
  });

  it('keeps at most 32 members and 512 characters, dropping members from the end', () => {
    const many = Array.from({ length: 40 }, (_, i) => `k${i}=v`).join(',');
    expect(boundedTracestate(many)!.split(',')).toHaveLength(32);
    const long = Array.from({ length: 10 }, (_, i) => `k${i}=${'x'.repeat(100)}`).join(',');
    const kept = boundedTracestate(long)!;
    expect(kept.length).toBeLessThanOrEqual(MAX_TRACESTATE_LENGTH);
    expect(kept.split(',')).toHaveLength(4);
    expect(kept.startsWith('k0=')).toBe(true);
  });
});

describe('the trace context of a request and of a stored event', () => {
  it("keeps the request's valid traceparent with its bounded tracestate", () => {
    expect(requestTraceContext({ traceparent: VALID, tracestate: 'congo=1, rojo=2' })).toEqual({
      traceparent: VALID,
      tracestate: 'congo=1,rojo=2',
    });
    expect(requestTraceContext({ traceparent: VALID, tracestate: 'Bad=1' })).toEqual({
      traceparent: VALID,
    });
  });

  it('keeps no tracestate without a valid traceparent', () => {
    expect(requestTraceContext({ tracestate: 'congo=1' })).toBeUndefined();
    expect(requestTraceContext({ traceparent: 'junk', tracestate: 'congo=1' })).toBeUndefined();
  });

  it('reads the stored context back, and nothing from headers that retention cleared', () => {
    expect(storedTraceParent({ traceparent: VALID, tracestate: 'congo=1' })).toEqual({
      traceId: TRACE_ID,
      spanId: SPAN_ID,
      traceFlags: 1,
      traceState: 'congo=1',
    });
    expect(storedTraceParent({})).toBeUndefined();
    expect(storedTraceParent(undefined)).toBeUndefined();
  });
});
