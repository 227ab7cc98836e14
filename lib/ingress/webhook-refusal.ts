/** Why a delivery is not taken. */
export type WebhookRefusalKind =
  | 'unknown_endpoint'
  | 'unknown_tenant'
  | 'tenant_unavailable'
  | 'provider_unavailable'
  | 'api_budget_spent'
  | 'method_not_allowed'
  | 'source_forbidden'
  | 'too_large'
  | 'body_timeout'
  | 'signature'
  | 'payload'
  | 'store_unavailable'
  | 'raw_body_unavailable'
  | 'unsupported_media_type';

/** The answer body of a refused delivery: the shape Nest's exception filter writes too. */
export interface WebhookRefusalBody {
  readonly statusCode: number;
  readonly error: string;
  readonly message: string;
}

const STATUS_TEXT: Readonly<Record<number, string>> = {
  401: 'Unauthorized',
  400: 'Bad Request',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  408: 'Request Timeout',
  413: 'Payload Too Large',
  415: 'Unsupported Media Type',
  498: 'Invalid Token',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};

/** The reason phrase of an error status the package answers, as Nest's error bodies carry it. */
export function statusText(status: number): string {
  return STATUS_TEXT[status] ?? 'Error';
}

/**
 * A refused delivery as an app meets it: the `refusal` of a `WebhookRefusalException`, which
 * each of those exceptions also takes in place of its own arguments. The package makes them.
 */
export interface RefusedDelivery {
  readonly kind: WebhookRefusalKind;
  /** The status the delivery is answered with. */
  readonly status: number;
  readonly message: string;
  /** For a 405: the value of the `Allow` header. */
  readonly allow?: string;
  /** For a 503 the sender should wait out: the value of `Retry-After`, in seconds. */
  readonly retryAfter?: string;
  /** The answer body. */
  readonly body: WebhookRefusalBody;
}

/**
 * A delivery the ingress does not take, with the status it is answered: 4xx for what the
 * sender must change, 503 when the store could not commit it (the provider retries), 500 when
 * the app is set up so that the raw bytes never arrive. Framework-free; each adapter writes it
 * the way its framework answers errors.
 */
export class WebhookRefusal extends Error implements RefusedDelivery {
  private constructor(
    readonly kind: WebhookRefusalKind,
    readonly status: number,
    message: string,
    /** For a 405: the value of the `Allow` header. */
    readonly allow?: string,
    /** For a 503 the sender should wait out: the value of `Retry-After`, in seconds. */
    readonly retryAfter?: string,
  ) {
    super(message);
    this.name = 'WebhookRefusal';
  }

  /** The answer body. */
  get body(): WebhookRefusalBody {
    return { statusCode: this.status, error: statusText(this.status), message: this.message };
  }

  static unknownEndpoint(name: string): WebhookRefusal {
    return new WebhookRefusal('unknown_endpoint', 404, `Unknown webhook endpoint "${name}"`);
  }

  /** 404: the tenant segment is missing, is no tenant name, or names no tenant of the endpoint. */
  static unknownTenant(endpoint: string, detail: string): WebhookRefusal {
    return new WebhookRefusal('unknown_tenant', 404, `Webhook endpoint "${endpoint}": ${detail}`);
  }

  /** 503: the tenant's settings cannot be had now (the resolver failed); the provider retries. */
  static tenantUnavailable(): WebhookRefusal {
    return new WebhookRefusal(
      'tenant_unavailable',
      503,
      "The webhook's tenant could not be resolved; retry later",
    );
  }

  static methodNotAllowed(name: string, method: string, allowed: readonly string[]) {
    const allow = allowed.join(', ');
    return new WebhookRefusal(
      'method_not_allowed',
      405,
      `Webhook endpoint "${name}" does not accept ${method}; it takes ${allow}`,
      allow,
    );
  }

  static sourceForbidden(): WebhookRefusal {
    return new WebhookRefusal('source_forbidden', 403, 'Source address not allowed');
  }

  static tooLarge(limit: number): WebhookRefusal {
    return new WebhookRefusal('too_large', 413, `Webhook body is larger than ${limit} bytes`);
  }

  static bodyTimeout(timeoutMs: number): WebhookRefusal {
    return new WebhookRefusal(
      'body_timeout',
      408,
      `Webhook body was not received within ${timeoutMs} ms`,
    );
  }

  /**
   * 400 (or the provider's own status for a signature it refuses: GoCardless asks for 498): the
   * signature or its timestamp does not check out.
   */
  static signature(message: string, status = 400): WebhookRefusal {
    return new WebhookRefusal('signature', status, message);
  }

  /**
   * 503: the provider's API could not confirm an unsigned delivery now (Mollie's classic
   * webhooks); nothing is stored and the provider sends it again.
   */
  static providerUnavailable(message: string): WebhookRefusal {
    return new WebhookRefusal('provider_unavailable', 503, message);
  }

  /**
   * 503 with `Retry-After`: confirming the delivery would take a call to the provider's API past
   * the endpoint's `apiCallBudget`; nothing is stored and the provider sends it again.
   * @param retryAfterMs until a call may be made again; `Retry-After` is it in whole seconds, at least 1.
   */
  static apiBudgetSpent(message: string, retryAfterMs = 1_000): WebhookRefusal {
    const seconds = String(Math.max(1, Math.ceil(retryAfterMs / 1000)));
    return new WebhookRefusal('api_budget_spent', 503, message, undefined, seconds);
  }

  static payload(message: string): WebhookRefusal {
    return new WebhookRefusal('payload', 400, message);
  }

  static storeUnavailable(): WebhookRefusal {
    return new WebhookRefusal(
      'store_unavailable',
      503,
      'The webhook could not be stored; retry later',
    );
  }

  static rawBodyUnavailable(message: string): WebhookRefusal {
    return new WebhookRefusal('raw_body_unavailable', 500, message);
  }

  static unsupportedMediaType(contentType: string | undefined): WebhookRefusal {
    return new WebhookRefusal(
      'unsupported_media_type',
      415,
      'Webhook deliveries must be application/json or application/x-www-form-urlencoded ' +
        `(got ${contentType === undefined ? 'no content type' : JSON.stringify(contentType)})`,
    );
  }
}
