import { Logger } from '@nestjs/common';
import { stripeEndpoint } from '../../providers/endpoints';
import { resolveWebhooksOptions } from '../../options/webhooks-options.resolver';
import { WebhookAlert } from '../../telemetry/webhook-alert.interface';
import { WebhookAlerts } from './webhook-alerts';
import { useNestLogger } from '../../nest/nest-logger';

const alert: WebhookAlert = {
  kind: 'payment_event_storm',
  endpoint: 'stripe',
  provider: 'stripe',
  at: new Date(),
  message: 'Payment pi_1 has 21 stored events',
  paymentRef: 'pi_1',
  events: 21,
  threshold: 20,
};

describe('WebhookAlerts', () => {
  let errors: jest.SpyInstance;
  let warnings: jest.SpyInstance;
  // NOTE: as in a Nest app, whose module routes the package's lines to Nest's Logger.
  beforeAll(() => useNestLogger());
  beforeEach(() => {
    errors = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    warnings = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
  });
  afterEach(() => jest.restoreAllMocks());

  function alertsWith(onAlert?: (alert: WebhookAlert) => void | Promise<void>): WebhookAlerts {
    return new WebhookAlerts(
      resolveWebhooksOptions({
        endpoints: [stripeEndpoint({ name: 'stripe', secret: 'whsec_abc' })],
        observability: { alerts: { onAlert } },
      }),
    );
  }

  it('logs every alert and hands it to onAlert and each subscriber', () => {
    const heard: string[] = [];
    const alerts = alertsWith((a) => {
      heard.push(`option:${a.kind}`);
    });
    const stop = alerts.subscribe((a) => {
      heard.push(`subscriber:${a.kind}`);
    });
    alerts.raise(alert);
    stop();
    alerts.raise(alert);
    expect(heard).toEqual([
      'option:payment_event_storm',
      'subscriber:payment_event_storm',
      'option:payment_event_storm',
    ]);
    expect(warnings).toHaveBeenCalledWith(
      '[payment_event_storm] Payment pi_1 has 21 stored events',
    );
  });

  it('keeps a failing or rejecting listener from silencing the others', async () => {
    const heard: WebhookAlert[] = [];
    const alerts = alertsWith(() => {
      throw new Error('pager down');
    });
    alerts.subscribe(() => Promise.reject(new Error('chat down')));
    alerts.subscribe((a) => {
      heard.push(a);
    });
    alerts.raise(alert);
    await new Promise((resolve) => setImmediate(resolve));
    expect(heard).toEqual([alert]);
    expect(errors).toHaveBeenCalledWith(expect.stringContaining('pager down'));
    expect(errors).toHaveBeenCalledWith(expect.stringContaining('chat down'));
  });

  it('hands listeners a message with card numbers masked and control characters escaped', () => {
    const heard: WebhookAlert[] = [];
    const alerts = alertsWith((a) => {
      heard.push(a);
    });
    const paymentRef = 'pi_\u001b[2J4111111111111111\n';
    alerts.raise({ ...alert, paymentRef, message: `Payment ${paymentRef} has 21 stored events` });
    expect(heard[0].message).toBe('Payment pi_\\x1b[2J411111******1111\\n has 21 stored events');
    expect(warnings).toHaveBeenCalledWith(`[payment_event_storm] ${heard[0].message}`);
  });
});
