import { HttpException } from '@nestjs/common';
import {
  httpExceptionOf,
  UnknownWebhookEndpointException,
  WebhookMethodNotAllowedException,
  WebhookSignatureException,
  WebhookStoreUnavailableException,
  WebhookTooLargeException,
} from './webhook-ingress.exceptions';
import { refusedAnswer } from '../ingress/ingress-answer';
import { WebhookRefusal } from '../ingress/webhook-refusal';

describe('WebhookRefusal', () => {
  const refusals: [WebhookRefusal, number, string][] = [
    [WebhookRefusal.unknownEndpoint('nope'), 404, 'Not Found'],
    [WebhookRefusal.methodNotAllowed('sber', 'PUT', ['GET', 'POST']), 405, 'Method Not Allowed'],
    [WebhookRefusal.sourceForbidden(), 403, 'Forbidden'],
    [WebhookRefusal.tooLarge(10), 413, 'Payload Too Large'],
    [WebhookRefusal.signature('No signatures found'), 400, 'Bad Request'],
    [WebhookRefusal.payload('Not JSON'), 400, 'Bad Request'],
    [WebhookRefusal.storeUnavailable(), 503, 'Service Unavailable'],
    [WebhookRefusal.apiBudgetSpent('budget spent', 1_200), 503, 'Service Unavailable'],
    [WebhookRefusal.rawBodyUnavailable('Enable rawBody'), 500, 'Internal Server Error'],
    [WebhookRefusal.unsupportedMediaType('text/plain'), 415, 'Unsupported Media Type'],
  ];

  it.each(refusals)(
    'answers %s with its status, a JSON body and no-store',
    (refusal, status, error) => {
      const answer = refusedAnswer(refusal);
      expect(answer.status).toBe(status);
      expect(answer.body).toEqual({ statusCode: status, error, message: refusal.message });
      expect(answer.headers['content-type']).toMatch(/^application\/json/);
      expect(answer.headers['cache-control']).toBe('no-store');
    },
  );

  it.each(refusals)(
    'becomes the Nest exception of its kind with the same answer: %s',
    (refusal) => {
      const exception = httpExceptionOf(refusal);
      expect(exception).toBeInstanceOf(HttpException);
      expect(exception.getStatus()).toBe(refusal.status);
      expect(exception.getResponse()).toEqual(refusal.body);
    },
  );

  it('keeps the classes and bodies the Nest exceptions had', () => {
    expect(httpExceptionOf(WebhookRefusal.signature('bad'))).toBeInstanceOf(
      WebhookSignatureException,
    );
    expect(httpExceptionOf(WebhookRefusal.storeUnavailable())).toBeInstanceOf(
      WebhookStoreUnavailableException,
    );
    expect(new UnknownWebhookEndpointException('shop').getResponse()).toEqual({
      statusCode: 404,
      error: 'Not Found',
      message: 'Unknown webhook endpoint "shop"',
    });
    expect(new WebhookTooLargeException(1024).getResponse()).toEqual({
      statusCode: 413,
      error: 'Payload Too Large',
      message: 'Webhook body is larger than 1024 bytes',
    });
  });

  it('carries the Allow value of a 405 into the answer and the exception', () => {
    const refusal = WebhookRefusal.methodNotAllowed('stripe', 'GET', ['POST']);
    expect(refusedAnswer(refusal).headers.allow).toBe('POST');
    const exception = httpExceptionOf(refusal) as WebhookMethodNotAllowedException;
    expect(exception).toBeInstanceOf(WebhookMethodNotAllowedException);
    expect(exception.allow).toBe('POST');
    expect(new WebhookMethodNotAllowedException('stripe', 'GET', ['POST']).allow).toBe('POST');
  });

  it('carries the wait of a 503 past the API call budget as Retry-After, in whole seconds', () => {
    expect(refusedAnswer(WebhookRefusal.apiBudgetSpent('spent', 1_200)).headers).toMatchObject({
      'retry-after': '2',
    });
    expect(refusedAnswer(WebhookRefusal.apiBudgetSpent('spent', 10)).headers['retry-after']).toBe(
      '1',
    );
    expect(refusedAnswer(WebhookRefusal.storeUnavailable()).headers['retry-after']).toBeUndefined();
  });
});
