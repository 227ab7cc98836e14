import type { IncomingHttpHeaders } from 'node:http';
import { CROSS_SITE_FETCH, CROSS_SITE_ORIGIN, JSON_REQUIRED } from './webhook-admin.messages';

/** Why a state-changing admin request is refused: 403 cross-site, 415 not JSON. */
export interface AdminWriteRefusal {
  readonly status: 403 | 415;
  readonly message: string;
}

const SAME_SITE_FETCH = ['same-origin', 'none'];

/**
 * Whether a request that changes events or dispatch (redeliver, settle, replay, discard, pause,
 * resume) may go on. A browser page of another site can send a form or a `text/plain` fetch with
 * the operator's cookies, but it cannot send `Content-Type: application/json` without a
 * preflight, nor hide where it came from: such a request is refused when `Sec-Fetch-Site` is
 * present and neither `same-origin` nor `none`, or (from a browser that sends no
 * `Sec-Fetch-Site`) when `Origin` is present and names another host than the request's `Host`.
 * A request with neither header (curl, a server, a script) passes that check. Then the content
 * type must be `application/json`.
 * @returns the refusal, or undefined when the request may go on.
 */
export function refuseAdminWrite(headers: IncomingHttpHeaders): AdminWriteRefusal | undefined {
  const site = single(headers['sec-fetch-site']);
  const origin = single(headers.origin);
  if (site !== undefined) {
    // NOTE: the browser's own verdict, which no page can set; it decides alone, so a proxy
    // that rewrites Host does not turn the operator's same-origin requests away.
    if (!SAME_SITE_FETCH.includes(site.trim().toLowerCase())) {
      return { status: 403, message: CROSS_SITE_FETCH(site) };
    }
  } else if (origin !== undefined && !sameHost(origin, headers.host)) {
    return { status: 403, message: CROSS_SITE_ORIGIN(origin, headers.host) };
  }
  const contentType = single(headers['content-type']);
  const mediaType = contentType?.split(';')[0].trim().toLowerCase();
  if (mediaType !== 'application/json') {
    return { status: 415, message: JSON_REQUIRED(contentType) };
  }
  return undefined;
}

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(', ') : value;
}

/** Whether `origin` (scheme://host[:port]) names the host the request was sent to. */
function sameHost(origin: string, host: string | undefined): boolean {
  if (host === undefined || host === '') {
    return false;
  }
  try {
    const from = new URL(origin);
    // NOTE: read with the origin's scheme, so a default port (":443") on one side only matches.
    return from.host === new URL(`${from.protocol}//${host}`).host;
  } catch {
    return false;
  }
}
