import { HttpException, HttpStatus } from '@nestjs/common';

/** 400: the delivery's signature or timestamp does not prove it came from the provider. */
export class WebhookSignatureException extends HttpException {
  constructor(message: string) {
    super(
      { statusCode: HttpStatus.BAD_REQUEST, error: 'Bad Request', message },
      HttpStatus.BAD_REQUEST,
    );
  }
}

/** 400: the verified body is not the envelope the provider sends. */
export class WebhookPayloadException extends HttpException {
  constructor(message: string) {
    super(
      { statusCode: HttpStatus.BAD_REQUEST, error: 'Bad Request', message },
      HttpStatus.BAD_REQUEST,
    );
  }
}

/** 404: no endpoint is configured under that name. */
export class UnknownWebhookEndpointException extends HttpException {
  constructor(name: string) {
    super(
      {
        statusCode: HttpStatus.NOT_FOUND,
        error: 'Not Found',
        message: `Unknown webhook endpoint "${name}"`,
      },
      HttpStatus.NOT_FOUND,
    );
  }
}

/**
 * 405: the endpoint exists but its provider never delivers with this method (a `GET` on a
 * POST-only endpoint). `allow` is the value of the `Allow` header the answer carries.
 */
export class WebhookMethodNotAllowedException extends HttpException {
  readonly allow: string;

  constructor(name: string, method: string, allowed: readonly string[]) {
    super(
      {
        statusCode: HttpStatus.METHOD_NOT_ALLOWED,
        error: 'Method Not Allowed',
        message: `Webhook endpoint "${name}" does not accept ${method}; it takes ${allowed.join(', ')}`,
      },
      HttpStatus.METHOD_NOT_ALLOWED,
    );
    this.allow = allowed.join(', ');
  }
}

/** 413: the body is larger than the endpoint accepts. */
export class WebhookTooLargeException extends HttpException {
  constructor(limit: number) {
    super(
      {
        statusCode: HttpStatus.PAYLOAD_TOO_LARGE,
        error: 'Payload Too Large',
        message: `Webhook body is larger than ${limit} bytes`,
      },
      HttpStatus.PAYLOAD_TOO_LARGE,
    );
  }
}

/** 503: the event could not be stored; the provider should retry later. Nothing was acknowledged. */
export class WebhookStoreUnavailableException extends HttpException {
  constructor() {
    super(
      {
        statusCode: HttpStatus.SERVICE_UNAVAILABLE,
        error: 'Service Unavailable',
        message: 'The webhook could not be stored; retry later',
      },
      HttpStatus.SERVICE_UNAVAILABLE,
    );
  }
}

/** 500: the app is configured so that the raw body never reaches the module. */
export class RawBodyUnavailableException extends HttpException {
  constructor(message: string) {
    super(
      { statusCode: HttpStatus.INTERNAL_SERVER_ERROR, error: 'Internal Server Error', message },
      HttpStatus.INTERNAL_SERVER_ERROR,
    );
  }
}

/**
 * 415: the platform parsed a body of this content type without keeping its bytes (Fastify's
 * `text/plain`), so no signature can be checked. Providers send JSON or form bodies.
 */
export class UnsupportedWebhookMediaTypeException extends HttpException {
  constructor(contentType: string | undefined) {
    super(
      {
        statusCode: HttpStatus.UNSUPPORTED_MEDIA_TYPE,
        error: 'Unsupported Media Type',
        message:
          `Webhook deliveries must be application/json or application/x-www-form-urlencoded ` +
          `(got ${contentType === undefined ? 'no content type' : JSON.stringify(contentType)})`,
      },
      HttpStatus.UNSUPPORTED_MEDIA_TYPE,
    );
  }
}

/** 403: the source address is not in the endpoint's allowlist. */
export class WebhookSourceForbiddenException extends HttpException {
  constructor() {
    super(
      {
        statusCode: HttpStatus.FORBIDDEN,
        error: 'Forbidden',
        message: 'Source address not allowed',
      },
      HttpStatus.FORBIDDEN,
    );
  }
}
