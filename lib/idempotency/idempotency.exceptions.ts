import { HttpException, HttpStatus } from '@nestjs/common';
import {
  KEY_IN_PROGRESS,
  KEY_MALFORMED,
  KEY_REQUIRED,
  KEY_REUSED,
  KEY_STORE_UNAVAILABLE,
} from './idempotency.messages';

/** 400: the route requires an `Idempotency-Key` and the request has none. */
export class IdempotencyKeyMissingException extends HttpException {
  constructor() {
    super(
      { statusCode: HttpStatus.BAD_REQUEST, error: 'Bad Request', message: KEY_REQUIRED },
      HttpStatus.BAD_REQUEST,
    );
  }
}

/** 400: the `Idempotency-Key` header is not 1 to 255 visible ASCII characters. */
export class IdempotencyKeyMalformedException extends HttpException {
  constructor() {
    super(
      { statusCode: HttpStatus.BAD_REQUEST, error: 'Bad Request', message: KEY_MALFORMED },
      HttpStatus.BAD_REQUEST,
    );
  }
}

/**
 * 409: an identical request with the same key is still running, or an outgoing call of the
 * operation is (sent with `Retry-After`). Nothing was stored for this request; retrying it
 * with the same key is safe.
 */
export class IdempotencyKeyInUseException extends HttpException {
  constructor(message: string = KEY_IN_PROGRESS) {
    super({ statusCode: HttpStatus.CONFLICT, error: 'Conflict', message }, HttpStatus.CONFLICT);
  }
}

/** 422: the key was first used for a request with another method, path or body. */
export class IdempotencyKeyReusedException extends HttpException {
  constructor() {
    super(
      {
        statusCode: HttpStatus.UNPROCESSABLE_ENTITY,
        error: 'Unprocessable Entity',
        message: KEY_REUSED,
      },
      HttpStatus.UNPROCESSABLE_ENTITY,
    );
  }
}

/** 503: the key could not be recorded, so the handler did not run; retry with the same key. */
export class IdempotencyStoreUnavailableException extends HttpException {
  constructor() {
    super(
      {
        statusCode: HttpStatus.SERVICE_UNAVAILABLE,
        error: 'Service Unavailable',
        message: KEY_STORE_UNAVAILABLE,
      },
      HttpStatus.SERVICE_UNAVAILABLE,
    );
  }
}
