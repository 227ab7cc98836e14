import type { ResolvedWebhooksOptions } from '../../options/webhooks-options.resolver';
import type { WebhookAlert, WebhookAlertListener } from '../../telemetry/webhook-alert.interface';
import { SafeLogger } from '../../telemetry/safe-logger';
import { safeText } from '../../telemetry/safe-text';

/**
 * Where alerts go: each one is logged as a warning, then handed to the `alerts.onAlert` option
 * and to every subscriber. Alerts are raised in the process that saw the condition; with
 * several instances, route them through something that groups duplicates (Alertmanager,
 * PagerDuty, a chat channel).
 *
 * @example
 * ```ts
 * @Injectable()
 * export class AlertsToSlack {
 *   constructor(private readonly alerts: WebhookAlerts, private readonly slack: SlackClient) {}
 *   onModuleInit() {
 *     this.alerts.subscribe((alert) => this.slack.post(`[${alert.kind}] ${alert.message}`));
 *   }
 * }
 * ```
 */
export class WebhookAlerts {
  private readonly logger = new SafeLogger('WebhookAlerts');
  private readonly listeners = new Set<WebhookAlertListener>();

  /** @internal the module constructs it; an app injects it, so its dependencies are not part of the API. */
  constructor(private readonly options: ResolvedWebhooksOptions) {}

  /** Adds a listener; returns a function that removes it. */
  subscribe(listener: WebhookAlertListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Raises an alert: logs it, then calls `onAlert` and every subscriber. A listener that throws
   * or rejects is logged and does not keep the others from hearing it.
   */
  raise(raised: WebhookAlert): void {
    // NOTE: the message quotes ids and refs from deliveries; listeners post it to chat and pagers.
    const alert = { ...raised, message: safeText(raised.message) };
    this.logger.warn(`[${alert.kind}] ${alert.message}`);
    const { onAlert } = this.options.observability.alerts;
    for (const listener of onAlert ? [onAlert, ...this.listeners] : this.listeners) {
      try {
        const result = listener(alert);
        if (result && typeof result.then === 'function') {
          result.then(undefined, (error: unknown) => this.listenerFailed(alert, error));
        }
      } catch (error) {
        this.listenerFailed(alert, error);
      }
    }
  }

  private listenerFailed(alert: WebhookAlert, error: unknown): void {
    this.logger.error(
      `An alert listener failed on ${alert.kind}: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}
