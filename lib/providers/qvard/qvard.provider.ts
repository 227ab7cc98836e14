import { assertBodySignature, BodySignatureHeader } from '../body-signature';
import {
  assertAcknowledgedWith200,
  defineEndpoint,
  plainTextAcknowledgement,
  requireSecrets,
} from '../define-endpoint';
import { checkEnvelope, defineEnvelope } from '../envelope';
import { identifier, nonEmptyString } from '../envelope-rules';
import { parseJsonObject, toIdentifier } from '../parse-payload';
import { qvardAcknowledgementMessage } from '../providers.messages';
import {
  BaseEndpointOptions,
  InboundWebhook,
  NormalizedNotification,
  WebhookAcknowledgement,
  WebhookEndpoint,
  WebhookProvider,
} from '../webhook-provider.interface';

const KIND = 'qvard';
const QVARD_SIGNATURE: BodySignatureHeader = {
  name: 'X-Qvard-Signature',
  algorithm: 'sha256',
  encoding: 'hex',
  shape: '64 hex digits',
  mismatch: 'X-Qvard-Signature does not match the payload and the secret',
};

/** Options of the Qvard protocol, shared by `qvardEndpoint()` and `QvardWebhookProvider`. */
export interface QvardProviderOptions {
  /**
   * The project's secret key from the Qvard dashboard, used verbatim as the HMAC key. Pass a list
   * while rotating: a delivery is accepted when any of them matches. Required.
   */
  secret: string | readonly string[];
}

/** Options of `qvardEndpoint()`. */
export interface QvardEndpointOptions extends BaseEndpointOptions, QvardProviderOptions {}

const QVARD_NOTIFICATION = defineEnvelope({
  id: identifier(),
  status: nonEmptyString(),
});

/**
 * Qvard: `X-Qvard-Signature` is HMAC-SHA256 (hex) of the raw body keyed by the secret key. A
 * notification is sent once a payment completes and carries only the merchant's order `id` and a
 * `status`, so the dedup key is `${id}:${status}`.
 */
export class QvardWebhookProvider implements WebhookProvider {
  /** Provider kind. */
  readonly kind = KIND;
  /**
   * NOTE: exactly 200; Qvard counts any other status, 201, 202 and 204 included, as a failed
   * delivery and retries it.
   */
  readonly acknowledgement: WebhookAcknowledgement = plainTextAcknowledgement();

  private readonly secrets: readonly string[];

  /**
   * @param options the Qvard options, checked here.
   * @param endpointName names the endpoint in configuration errors.
   * @throws WebhookConfigurationError when no usable secret is given.
   */
  constructor(options: QvardProviderOptions, endpointName = KIND) {
    this.secrets = requireSecrets(endpointName, KIND, 'secret', options?.secret);
  }

  /**
   * Checks X-Qvard-Signature against the raw body.
   * @throws WebhookVerificationError
   */
  verify(request: InboundWebhook): void {
    assertBodySignature(request, QVARD_SIGNATURE, this.secrets);
  }

  /**
   * Parses a Qvard notification; the event id is `${id}:${status}`.
   * @throws WebhookPayloadError
   */
  normalize(request: InboundWebhook): NormalizedNotification {
    const body = parseJsonObject(request.rawBody, 'Qvard notification body');
    const notification = checkEnvelope(QVARD_NOTIFICATION, body, 'Qvard notification');
    // NOTE: the envelope check guarantees an identifier here.
    const orderId = toIdentifier(notification.id) as string;
    const status = notification.status;
    return {
      eventId: `${orderId}:${status}`,
      type: status === 'completed' ? 'payment.succeeded' : `${KIND}:${status}`,
      nativeType: status,
      merchantRef: orderId,
      status,
      payload: body,
    };
  }
}

/**
 * A Qvard webhook endpoint.
 * @throws WebhookConfigurationError at startup when no usable secret is given, or when
 * `acknowledgement.status` is set to anything but 200.
 * @example
 * qvardEndpoint({ name: 'qvard', secret: process.env.QVARD_SECRET_KEY! })
 */
export function qvardEndpoint(options: QvardEndpointOptions): WebhookEndpoint {
  const provider = new QvardWebhookProvider(options, options?.name);
  assertAcknowledgedWith200(options, (status) => qvardAcknowledgementMessage(options.name, status));
  return defineEndpoint(options, provider);
}

/** The provider kind of the endpoints it builds: `tenantEndpoint()` reads it. */
qvardEndpoint.kind = 'qvard';
