import { HttpException } from '@nestjs/common';
import { RefusedDelivery, WebhookRefusal } from '../ingress/webhook-refusal';

/**
 * An engine refusal as a Nest `HttpException`: same status, same body, so the app's exception
 * filters see one class per kind. Each subclass takes its own arguments or the refusal itself.
 */
export class WebhookRefusalException extends HttpException {
  constructor(readonly refusal: RefusedDelivery) {
    super(refusal.body, refusal.status);
  }
}

/** 400: the delivery's signature or timestamp does not prove it came from the provider. */
export class WebhookSignatureException extends WebhookRefusalException {
  constructor(message: string | RefusedDelivery) {
    super(typeof message === 'string' ? WebhookRefusal.signature(message) : message);
  }
}

/** 400: the verified body is not the envelope the provider sends. */
export class WebhookPayloadException extends WebhookRefusalException {
  constructor(message: string | RefusedDelivery) {
    super(typeof message === 'string' ? WebhookRefusal.payload(message) : message);
  }
}

/** 404: no endpoint is configured under that name. */
export class UnknownWebhookEndpointException extends WebhookRefusalException {
  constructor(name: string | RefusedDelivery) {
    super(typeof name === 'string' ? WebhookRefusal.unknownEndpoint(name) : name);
  }
}

/**
 * 405: the endpoint exists but its provider never delivers with this method (a `GET` on a
 * POST-only endpoint). `allow` is the value of the `Allow` header the answer carries.
 */
export class WebhookMethodNotAllowedException extends WebhookRefusalException {
  readonly allow: string;

  constructor(
    ...args: [refusal: RefusedDelivery] | [name: string, method: string, allowed: readonly string[]]
  ) {
    const refusal = args.length === 1 ? args[0] : WebhookRefusal.methodNotAllowed(...args);
    super(refusal);
    this.allow = refusal.allow ?? '';
  }
}

/** 413: the body is larger than the endpoint accepts. */
export class WebhookTooLargeException extends WebhookRefusalException {
  constructor(limit: number | RefusedDelivery) {
    super(typeof limit === 'number' ? WebhookRefusal.tooLarge(limit) : limit);
  }
}

/** 408: the sender did not send the whole body within the endpoint's `bodyTimeoutMs`. */
export class WebhookBodyTimeoutException extends WebhookRefusalException {
  constructor(timeoutMs: number | RefusedDelivery) {
    super(typeof timeoutMs === 'number' ? WebhookRefusal.bodyTimeout(timeoutMs) : timeoutMs);
  }
}

/** 503: the event could not be stored; the provider should retry later. Nothing was acknowledged. */
export class WebhookStoreUnavailableException extends WebhookRefusalException {
  constructor(refusal: RefusedDelivery = WebhookRefusal.storeUnavailable()) {
    super(refusal);
  }
}

/** 500: the app is configured so that the raw body never reaches the module. */
export class RawBodyUnavailableException extends WebhookRefusalException {
  constructor(message: string | RefusedDelivery) {
    super(typeof message === 'string' ? WebhookRefusal.rawBodyUnavailable(message) : message);
  }
}

/**
 * 415: the platform parsed a body of this content type without keeping its bytes (Fastify's
 * `text/plain`), so no signature can be checked. Providers send JSON or form bodies.
 */
export class UnsupportedWebhookMediaTypeException extends WebhookRefusalException {
  constructor(contentType: string | undefined | RefusedDelivery) {
    super(
      typeof contentType === 'object'
        ? contentType
        : WebhookRefusal.unsupportedMediaType(contentType),
    );
  }
}

/** 403: the source address is not in the endpoint's allowlist. */
export class WebhookSourceForbiddenException extends WebhookRefusalException {
  constructor(refusal: RefusedDelivery = WebhookRefusal.sourceForbidden()) {
    super(refusal);
  }
}

/** 503: the tenant's settings could not be resolved now; the provider should retry later. */
export class WebhookTenantUnavailableException extends WebhookRefusalException {
  constructor(refusal: RefusedDelivery = WebhookRefusal.tenantUnavailable()) {
    super(refusal);
  }
}

const EXCEPTION_OF_KIND: Readonly<
  Record<WebhookRefusal['kind'], new (refusal: RefusedDelivery) => WebhookRefusalException>
> = {
  unknown_endpoint: UnknownWebhookEndpointException,
  // NOTE: a URL whose tenant is no tenant of the endpoint names no endpoint of the app.
  unknown_tenant: UnknownWebhookEndpointException,
  tenant_unavailable: WebhookTenantUnavailableException,
  // NOTE: the provider's API could not confirm an unsigned delivery: a 503 of its own kind.
  provider_unavailable: WebhookRefusalException,
  // NOTE: so is a delivery past the endpoint's budget of API calls; Retry-After is set by the flow.
  api_budget_spent: WebhookRefusalException,
  method_not_allowed: WebhookMethodNotAllowedException,
  source_forbidden: WebhookSourceForbiddenException,
  too_large: WebhookTooLargeException,
  body_timeout: WebhookBodyTimeoutException,
  signature: WebhookSignatureException,
  payload: WebhookPayloadException,
  store_unavailable: WebhookStoreUnavailableException,
  raw_body_unavailable: RawBodyUnavailableException,
  unsupported_media_type: UnsupportedWebhookMediaTypeException,
};

/** The Nest exception of an engine refusal. */
export function httpExceptionOf(refusal: WebhookRefusal): WebhookRefusalException {
  return new EXCEPTION_OF_KIND[refusal.kind](refusal);
}
