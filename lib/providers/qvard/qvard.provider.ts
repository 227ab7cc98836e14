import { bodyHmacSignature, BodySignatureHeader } from '../body-signature';
import { assertAcknowledgedWith200 } from '../define-endpoint';
import { defineProvider } from '../define-provider';
import { defineEnvelope } from '../envelope';
import { identifier, nonEmptyString } from '../envelope-rules';
import { toIdentifier } from '../parse-payload';
import { qvardAcknowledgementMessage } from '../providers.messages';
import { BaseEndpointOptions, WebhookEndpoint } from '../webhook-provider.interface';

const KIND = 'qvard';
const QVARD_SIGNATURE: BodySignatureHeader = {
  name: 'X-Qvard-Signature',
  algorithm: 'sha256',
  encoding: 'hex',
  shape: '64 hex digits',
  mismatch: 'X-Qvard-Signature does not match the payload and the secret',
};

/** `X-Qvard-Signature`, as the endpoint checks it and `signQvard()` writes it. */
export const QVARD_SIGNATURE_SCHEME = bodyHmacSignature(QVARD_SIGNATURE);

/** Options of the Qvard protocol, shared by `qvardEndpoint()` and the provider. */
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
 * `status`, so the dedup key is `${id}:${status}`. The acknowledgement is exactly 200: Qvard
 * counts any other status, 201, 202 and 204 included, as a failed delivery and retries it.
 */
export const qvardProvider = defineProvider<QvardEndpointOptions, typeof QVARD_NOTIFICATION.rules>({
  kind: KIND,
  name: 'Qvard',
  secrets: {
    option: 'secret',
    howToCopy: "Copy the project's secret key from the Qvard dashboard",
  },
  signature: QVARD_SIGNATURE_SCHEME,
  checkOptions(options) {
    assertAcknowledgedWith200(options, (status) =>
      qvardAcknowledgementMessage(options.name, status),
    );
  },
  eventName: 'Qvard notification',
  envelope: QVARD_NOTIFICATION,
  types: { completed: 'payment.succeeded' },
  normalize({ event: notification }) {
    // NOTE: the envelope check guarantees an identifier here.
    const orderId = toIdentifier(notification.id) as string;
    const status = notification.status;
    return {
      eventId: `${orderId}:${status}`,
      nativeType: status,
      merchantRef: orderId,
      status,
      payload: notification,
    };
  },
  cli: {
    secret: "the project's secret key",
    payload: 'the notification, signed byte for byte',
    flags: [],
  },
  sample: {
    secret: 'qvard-sample-secret',
    body: '{"id":"order-1","status":"completed"}',
  },
});

/**
 * A Qvard webhook endpoint.
 * @throws WebhookConfigurationError at startup when no usable secret is given, when a secret
 * holds whitespace, or when `acknowledgement.status` is set to anything but 200.
 * @example
 * qvardEndpoint({ name: 'qvard', secret: process.env.QVARD_SECRET_KEY! })
 */
export function qvardEndpoint(options: QvardEndpointOptions): WebhookEndpoint {
  return qvardProvider.endpoint(options);
}

/** The provider kind of the endpoints it builds: `tenantEndpoint()` reads it. */
qvardEndpoint.kind = KIND;
