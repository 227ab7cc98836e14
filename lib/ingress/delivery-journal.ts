import { randomUUID } from 'node:crypto';
import type { WebhookJournalFormat } from '../options/webhooks-observability-options.interface';
import type { SafeLogger } from '../telemetry/safe-logger';
import type { DeliveryRecord } from '../telemetry/webhook-telemetry';

/**
 * Logs a delivery's journal entry in the chosen form: one `key=value` line, the entry as an
 * object for a logger that takes objects, or nothing. 5xx at `error`, 4xx at `warn`, the rest
 * at `log`.
 * @param traceId the delivery's trace, when known: its span's, or the request's `traceparent`'s.
 */
export function writeJournal(
  logger: SafeLogger,
  format: WebhookJournalFormat,
  record: DeliveryRecord,
  traceId?: string,
): void {
  if (format === false) {
    return;
  }
  // NOTE: the logger masks card numbers and escapes control characters in every value.
  const entry = {
    requestId: record.requestId,
    traceId,
    endpoint: record.endpoint,
    tenant: record.tenant,
    provider: record.provider,
    decision: record.decision,
    status: record.status,
    latencyMs: record.latencyMs,
    sourceIp: record.sourceIp,
    ...(record.eventIds ? { eventId: record.eventIds.join(',') } : {}),
    ...(record.types ? { type: [...new Set(record.types)].join(',') } : {}),
    ...(record.handled ? { handled: record.handled.join(',') } : {}),
    ...(record.reason ? { reason: record.reason } : {}),
  };
  const message = format === 'line' ? journalLine(entry) : entry;
  if (record.status >= 500) {
    logger.error(message);
  } else if (record.status >= 400) {
    logger.warn(message);
  } else {
    logger.log(message);
  }
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** The caller's request id when it is a plain token, otherwise a fresh one. */
export function requestIdOf(headers: Readonly<Record<string, string | undefined>>): string {
  const given = headers['x-request-id']?.trim();
  return given !== undefined && REQUEST_ID.test(given) ? given : randomUUID();
}

/** A bare `key=value` value: anything else is written as a JSON string. */
const BARE_VALUE = /^[\w.:/@+,-]+$/;

/**
 * A journal entry as one `key=value` line in the entry's order, leaving out what it does not
 * know; a value with spaces, quotes, `=` or control characters is JSON-quoted (logfmt).
 */
function journalLine(entry: Readonly<Record<string, unknown>>): string {
  const fields: string[] = [];
  for (const [key, value] of Object.entries(entry)) {
    if (value === undefined || value === null) {
      continue;
    }
    const text = String(value);
    fields.push(`${key}=${BARE_VALUE.test(text) ? text : JSON.stringify(text)}`);
  }
  return fields.join(' ');
}
