import {
  AttemptRecord,
  DeliveryDecision,
  DeliveryRecord,
  WebhookTelemetry,
} from '../telemetry/webhook-telemetry';
import { ACTIVITY_MINUTES, ActivityRecorder } from './activity-recorder';

const MINUTE = 60_000;
const START = Date.UTC(2026, 10, 28, 10, 0, 0);

function delivery(decision: DeliveryDecision, latencyMs = 5): DeliveryRecord {
  return {
    requestId: 'r',
    endpoint: 'stripe',
    decision,
    status: 200,
    latencyMs,
    receivedAt: new Date(),
  };
}

function attempt(outcome: string, durationMs: number): AttemptRecord {
  return {
    id: 'e',
    endpoint: 'stripe',
    provider: 'stripe',
    type: 'payment.succeeded',
    eventId: 'evt_1',
    handler: 'Orders.onPaid',
    attempt: 1,
    outcome,
    durationMs,
  };
}

describe('ActivityRecorder', () => {
  let now: number;
  let telemetry: WebhookTelemetry;
  let recorder: ActivityRecorder;

  beforeEach(() => {
    now = START + 30_000;
    telemetry = new WebhookTelemetry();
    recorder = new ActivityRecorder(telemetry, () => now);
  });

  it('counts the deliveries of each minute by decision, the current minute last', () => {
    telemetry.delivery(delivery('accepted'));
    telemetry.delivery(delivery('accepted'));
    telemetry.delivery(delivery('rejected_signature'));
    now += MINUTE;
    telemetry.delivery(delivery('duplicate'));

    const { minutes, scope } = recorder.snapshot();
    expect(scope).toBe('process');
    expect(minutes).toHaveLength(ACTIVITY_MINUTES);
    expect(minutes.at(-1)).toMatchObject({
      start: new Date(START + MINUTE),
      deliveries: { duplicate: 1 },
    });
    expect(minutes.at(-2)).toMatchObject({
      start: new Date(START),
      deliveries: { accepted: 2, rejected_signature: 1 },
    });
    expect(minutes[0]).toMatchObject({ deliveries: {}, answerMs: null, handlerRuns: 0 });
  });

  it('gives the p50 and p95 of handler runs within a quarter of a doubling, failures counted', () => {
    for (let ms = 1; ms <= 100; ms++) {
      telemetry.attempt(attempt(ms % 10 === 0 ? 'failed' : 'ran', ms));
    }
    telemetry.attempt(attempt('already_done', 0));

    const latest = recorder.snapshot().minutes.at(-1)!;
    expect(latest.handlerRuns).toBe(100);
    expect(latest.handlerFailures).toBe(10);
    const { p50, p95, max, count } = latest.handlerMs!;
    expect(count).toBe(100);
    expect(max).toBe(100);
    expect(p50).toBeGreaterThanOrEqual(50);
    expect(p50).toBeLessThanOrEqual(50 * 1.19);
    expect(p95).toBeGreaterThanOrEqual(95);
    expect(p95).toBeLessThanOrEqual(100);
  });

  it('forgets a minute once it is an hour old, and keeps the same memory', () => {
    telemetry.delivery(delivery('accepted', 3));
    now += ACTIVITY_MINUTES * MINUTE;
    expect(recorder.snapshot().minutes.every((minute) => minute.answerMs === null)).toBe(true);

    telemetry.delivery(delivery('ignored', 3));
    const minutes = recorder.snapshot().minutes;
    expect(minutes.at(-1)!.deliveries).toEqual({ ignored: 1 });
    expect(minutes.at(-1)!.answerMs).toEqual({ count: 1, p50: 3, p95: 3, max: 3 });
    expect(minutes.filter((minute) => minute.answerMs !== null)).toHaveLength(1);
  });

  it('says when it started recording', () => {
    expect(recorder.snapshot().recordingSince).toEqual(new Date(START + 30_000));
  });
});
