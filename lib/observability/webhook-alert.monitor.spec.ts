import { Logger } from '@nestjs/common';
import { stripeEndpoint } from '../providers/endpoints';
import { resolveWebhooksOptions } from '../options/webhooks-options.resolver';
import { InboxSampler } from './inbox-sampler';
import { WebhookAlert } from '../telemetry/webhook-alert.interface';
import { WebhookAlertMonitor } from './webhook-alert.monitor';
import { WebhookAlerts } from './webhook-alerts';
import { DeliveryDecision, WebhookTelemetry } from '../telemetry/webhook-telemetry';

describe('WebhookAlertMonitor', () => {
  const raised: WebhookAlert[] = [];
  const telemetry = new WebhookTelemetry();
  let monitor: WebhookAlertMonitor;
  let eventsOfPayment = 0;

  beforeAll(() => {
    jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    const options = resolveWebhooksOptions({
      endpoints: [stripeEndpoint({ name: 'stripe', secret: 'whsec_abc' })],
      observability: {
        alerts: {
          onAlert: (alert) => {
            raised.push(alert);
          },
          signatureFailureThreshold: 3,
          signatureFailureWindowMs: 60_000,
          paymentEventThreshold: 2,
        },
      },
    });
    const sampler = {
      countPaymentEvents: async () => eventsOfPayment,
    } as unknown as InboxSampler;
    monitor = new WebhookAlertMonitor(options, telemetry, new WebhookAlerts(options), sampler);
    monitor.start();
  });
  afterAll(() => {
    monitor.stop();
    jest.restoreAllMocks();
  });
  beforeEach(() => {
    raised.length = 0;
  });

  function deliver(decision: DeliveryDecision, at: number, paymentRefs?: string[]): void {
    telemetry.delivery({
      requestId: `r${at}`,
      endpoint: 'stripe',
      provider: 'stripe',
      decision,
      status: decision === 'rejected_signature' ? 400 : 200,
      latencyMs: 1,
      receivedAt: new Date(at),
      paymentRefs,
    });
  }

  it('counts only bad signatures that fall within the window', () => {
    const start = Date.UTC(2025, 0, 1);
    deliver('rejected_signature', start);
    deliver('rejected_signature', start + 50_000);
    deliver('rejected_signature', start + 100_000);
    expect(raised).toEqual([]);
    deliver('rejected_signature', start + 105_000);
    expect(raised).toEqual([
      expect.objectContaining({
        kind: 'signature_failures',
        failures: 3,
        windowMs: 60_000,
        firstAt: new Date(start + 50_000),
      }),
    ]);
  });

  it('lets other refusals neither count nor end a run', () => {
    const start = Date.UTC(2025, 0, 2);
    deliver('accepted', start);
    deliver('rejected_signature', start + 1);
    deliver('rejected_timestamp', start + 2);
    deliver('invalid', start + 3);
    deliver('rejected_signature', start + 4);
    expect(raised).toEqual([]);
    deliver('rejected_signature', start + 5);
    expect(raised).toHaveLength(1);
  });

  it('raises a payment storm once per payment, not for duplicates', async () => {
    eventsOfPayment = 3;
    deliver('duplicate', 1, ['pi_dup']);
    deliver('accepted', 2, ['pi_storm', 'pi_storm']);
    deliver('accepted', 3, ['pi_storm']);
    await new Promise((resolve) => setImmediate(resolve));
    expect(raised).toEqual([
      expect.objectContaining({ kind: 'payment_event_storm', paymentRef: 'pi_storm', events: 3 }),
    ]);
  });

  it('raises a dead letter with its error redacted', () => {
    telemetry.settled({
      id: 'inbox-1',
      endpoint: 'stripe',
      provider: 'stripe',
      type: 'payment.succeeded',
      eventId: 'evt_1',
      paymentRef: 'pi_1',
      status: 'dead',
      attempt: 25,
      ageMs: 1000,
      error: 'card 4111 1111 1111 1111 declined',
    });
    expect(raised).toEqual([
      expect.objectContaining({ kind: 'dead_letter', id: 'inbox-1', attempt: 25 }),
    ]);
    const [alert] = raised;
    expect(alert.kind === 'dead_letter' && alert.error).toBe('card 411111******1111 declined');
    expect(alert.message).not.toContain('4111 1111');
  });
});
