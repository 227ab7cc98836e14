import { ServerResponse } from 'node:http';
import { IngressAnswer } from '../ingress/ingress-answer';
import { statusText } from '../ingress/webhook-refusal';

/** A JSON error body, shaped like the ingress's refusals (and Nest's `HttpException`). */
export interface RouterErrorBody {
  readonly statusCode: number;
  readonly error: string;
  readonly message: string;
}

/** An error body for `status` carrying `message`. */
export function errorBody(status: number, message: string): RouterErrorBody {
  return { statusCode: status, error: statusText(status), message };
}

/** Writes the engine's answer as it is: status, headers, and the body byte for byte. */
export function writeAnswer(response: ServerResponse, answer: IngressAnswer): void {
  const body = typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body);
  writeBody(response, answer.status, answer.headers, body);
}

/** Writes `value` as a JSON answer that no cache keeps. */
export function writeJson(response: ServerResponse, status: number, value: unknown): void {
  writeBody(
    response,
    status,
    { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' },
    JSON.stringify(value),
  );
}

/** Writes `text` with its content type and no caching. */
export function writeText(
  response: ServerResponse,
  status: number,
  contentType: string,
  text: string,
): void {
  writeBody(response, status, { 'content-type': contentType, 'cache-control': 'no-store' }, text);
}

function writeBody(
  response: ServerResponse,
  status: number,
  headers: Readonly<Record<string, string>>,
  body: string,
): void {
  response.statusCode = status;
  for (const [name, value] of Object.entries(headers)) {
    response.setHeader(name, value);
  }
  response.setHeader('Content-Length', Buffer.byteLength(body));
  response.end(body);
}
