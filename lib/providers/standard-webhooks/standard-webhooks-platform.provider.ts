import { plainTextAcknowledgement } from '../define-endpoint';
import { resolveNonEmptyString, resolveTolerance } from '../provider-options';
import {
  InboundWebhook,
  NormalizedNotification,
  WebhookAcknowledgement,
  WebhookProvider,
} from '../webhook-provider.interface';
import { StandardWebhooksProvider } from './standard-webhooks.provider';

/** The options a platform signing with Standard Webhooks hands on to its base. */
export interface StandardWebhooksPlatformOptions {
  /**
   * Largest distance in seconds between the signed `webhook-timestamp` and the receive time.
   * @default 300
   * @advanced
   */
  toleranceSeconds?: number;
  /**
   * The timestamp window in seconds, under its name before 1.0.
   * @deprecated use `toleranceSeconds` (the same number of seconds); read until 2.0.
   */
  tolerance?: number;
  /**
   * Key of the `metadata` entry that holds the shop's order id.
   * @default 'orderId'
   */
  merchantRefKey?: string;
}

/**
 * Base of a platform that signs its own events with Standard Webhooks (`webhook-id`,
 * `webhook-timestamp`, `webhook-signature`), such as Polar and Dodo Payments: the Standard
 * Webhooks provider verifies each delivery and reads its event id; the subclass maps the body.
 */
export abstract class StandardWebhooksPlatformProvider implements WebhookProvider {
  /** Provider kind. */
  abstract readonly kind: string;
  /** These platforms accept any 2xx; an empty 200 is the plainest. */
  readonly acknowledgement: WebhookAcknowledgement = plainTextAcknowledgement();
  /** The headers `normalize()` reads again on replay: the event id and its timestamp. */
  readonly storedHeaders: readonly string[];
  /** Key of the `metadata` entry whose value becomes `merchantRef`. */
  protected readonly merchantRefKey: string;

  private readonly standard: StandardWebhooksProvider;

  /**
   * @param kind the platform's provider kind.
   * @param keys the Standard Webhooks secrets (`whsec_` + base64 of the key) to try, already
   * checked and derived from the platform's own secrets.
   * @param options the platform's timestamp window and `merchantRefKey`, checked here.
   * @param endpointName names the endpoint in configuration errors.
   * @param factory the platform's endpoint factory, named in deprecation warnings.
   * @throws WebhookConfigurationError when an option cannot work.
   */
  protected constructor(
    kind: string,
    keys: readonly string[],
    options: StandardWebhooksPlatformOptions,
    endpointName: string,
    factory: string,
  ) {
    this.standard = new StandardWebhooksProvider(
      {
        secret: keys,
        toleranceSeconds: resolveTolerance(endpointName, kind, options, factory),
        kind,
      },
      endpointName,
    );
    this.storedHeaders = this.standard.storedHeaders;
    this.merchantRefKey = resolveNonEmptyString(
      endpointName,
      kind,
      'merchantRefKey',
      options.merchantRefKey,
      'orderId',
    );
  }

  /**
   * Checks `webhook-signature` against id, timestamp and raw body, then the timestamp window.
   * @throws WebhookVerificationError
   */
  verify(request: InboundWebhook): void {
    this.standard.verify(request);
  }

  /**
   * Parses the platform's event and maps it to the normalized vocabulary.
   * @throws WebhookPayloadError
   */
  abstract normalize(request: InboundWebhook): NormalizedNotification;

  /** The `webhook-id` the signature covered, read by the provider that verified it. */
  protected eventId(request: InboundWebhook): string {
    return this.standard.normalize(request).eventId;
  }
}
