import { Logger } from '@nestjs/common';
import { stripeEndpoint } from '../../providers/endpoints';
import { resolveWebhooksOptions } from '../../options/webhooks-options.resolver';
import { InboxSampler } from '../inbox-sampler';
import { WebhookAlert } from '../../telemetry/webhook-alert.interface';
import { WebhookAlertMonitor } from './webhook-alert.monitor';
import { WebhookAlerts } from './webhook-alerts';
import { DeliveryDecision, WebhookTelemetry } from '../../telemetry/webhook-telemetry';

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

  describe('failure groups', () => {
    const failure = {
      handler: 'Orders.onPaid',
      errorClass: 'TypeError',
      fingerprint: 'a1b2c3d4e5f60718',
    };

    function settled(
      id: string,
      status: 'retrying' | 'dead',
      attempt: number,
      failures = [failure],
    ) {
      telemetry.settled({
        id,
        endpoint: 'stripe',
        provider: 'stripe',
        type: 'payment.succeeded',
        eventId: `evt_${id}`,
        paymentRef: null,
        status,
        attempt,
        ageMs: 1000,
        error: 'Orders.onPaid: TypeError: stock service down',
        failures,
      });
    }

    function ran(id: string, outcome: string) {
      telemetry.attempt({
        id,
        endpoint: 'stripe',
        provider: 'stripe',
        type: 'payment.succeeded',
        eventId: `evt_${id}`,
        handler: 'Orders.onPaid',
        attempt: 1,
        outcome,
        durationMs: 3,
      });
    }

    it('alerts on the first failure of a group, on the event that dies, and on recovery, with the commands to run', () => {
      settled('e1', 'retrying', 1);
      settled('e2', 'retrying', 1);
      settled('e1', 'retrying', 2);
      expect(raised.map((alert) => alert.kind)).toEqual(['handler_failing']);
      const [failing] = raised;
      expect(failing).toMatchObject({
        handler: 'Orders.onPaid',
        fingerprint: failure.fingerprint,
        errorClass: 'TypeError',
        id: 'e1',
      });
      const cli = 'npx nestjs-payment-webhooks';
      expect(failing.message).toContain(
        `\`${cli} events replay --group ${failure.fingerprint} --dry-run\`, then ` +
          `\`${cli} events replay --group ${failure.fingerprint}\``,
      );
      expect(failing.message).toContain(
        `\`POST /webhooks-admin/replay?fingerprint=${failure.fingerprint}&dryRun=true {}\``,
      );
      expect(failing.message).toContain(
        `\`POST /webhooks-admin/replays?fingerprint=${failure.fingerprint} {}\``,
      );
      expect(failing.message).toContain(
        `\`${cli} pause --endpoint stripe --handler Orders.onPaid\` ` +
          '(or `POST /webhooks-admin/pause {"endpoint":"stripe","handler":"Orders.onPaid"}`)',
      );
      expect(failing.message).not.toContain('WebhookAdmin');

      settled('e1', 'dead', 3);
      expect(raised[1]).toMatchObject({
        kind: 'dead_letter',
        id: 'e1',
        fingerprints: [failure.fingerprint],
      });
      expect(raised[1].message).toContain(`events replay --group ${failure.fingerprint}`);

      ran('e3', 'failed');
      // A run found in the ledger ran nothing: not a recovery.
      ran('e1', 'already_done');
      expect(raised).toHaveLength(2);
      ran('e3', 'ran');
      expect(raised[2]).toMatchObject({
        kind: 'handler_recovered',
        handler: 'Orders.onPaid',
        fingerprints: [failure.fingerprint],
      });
      expect(raised[2].message).toContain('events groups --status dead');
      // Recovered: the next failure of the group is a first failure again.
      ran('e4', 'ran');
      settled('e5', 'retrying', 1);
      expect(raised.map((alert) => alert.kind)).toEqual([
        'handler_failing',
        'dead_letter',
        'handler_recovered',
        'handler_failing',
      ]);
    });

    it('names the event when it died of several causes', () => {
      settled('e9', 'dead', 2, [
        failure,
        { handler: 'Mail.onPaid', errorClass: 'Error', fingerprint: 'ffff000011112222' },
      ]);
      const dead = raised.find((alert) => alert.kind === 'dead_letter')!;
      expect(dead.message).toContain('`npx nestjs-payment-webhooks events show e9`');
      expect(dead.message).toContain('`npx nestjs-payment-webhooks events replay e9`');
      expect(dead.message).toContain('`POST /webhooks-admin/events/e9/redeliver {}`');
    });

    it('quotes a handler name the shell would split, and names it whole in the route body', () => {
      settled('e10', 'retrying', 1, [
        { handler: "send Ann's receipt", errorClass: 'Error', fingerprint: '0123456789abcdef' },
      ]);
      const failing = raised.find((alert) => alert.kind === 'handler_failing')!;
      expect(failing.message).toContain(
        `pause --endpoint stripe --handler 'send Ann'\\''s receipt'\``,
      );
      expect(failing.message).toContain(
        `\`POST /webhooks-admin/pause {"endpoint":"stripe","handler":"send Ann's receipt"}\``,
      );
    });
  });
});
