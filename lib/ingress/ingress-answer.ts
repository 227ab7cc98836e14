import { WebhookAcknowledgement } from '../providers/webhook-provider.interface';
import { WebhookRefusal, WebhookRefusalBody } from './webhook-refusal';

/** What to answer a delivery, whatever carries it: the engine's HTTP-free result. */
export interface IngressAnswer {
  readonly status: number;
  /** Header values by lower-case name. */
  readonly headers: Readonly<Record<string, string>>;
  /** The provider's success body, sent byte for byte, or a refusal's JSON body. */
  readonly body: string | WebhookRefusalBody;
}

/** The answer to a stored delivery: exactly what its provider expects. */
export function acceptedAnswer(acknowledgement: WebhookAcknowledgement): IngressAnswer {
  return {
    status: acknowledgement.status,
    headers: { 'content-type': acknowledgement.contentType, 'cache-control': 'no-store' },
    body: acknowledgement.body,
  };
}

/** The answer to a refused delivery. */
export function refusedAnswer(refusal: WebhookRefusal): IngressAnswer {
  return {
    status: refusal.status,
    headers: {
      'content-type': 'application/json; charset=utf-8',
      'cache-control': 'no-store',
      ...(refusal.allow === undefined ? {} : { allow: refusal.allow }),
      ...(refusal.retryAfter === undefined ? {} : { 'retry-after': refusal.retryAfter }),
    },
    body: refusal.body,
  };
}
