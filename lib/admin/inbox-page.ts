import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ActivityRecorder, ActivitySnapshot } from '../observability/activity-recorder';
import type { WebhookAdmin } from './webhook-admin';
import { WebhookAdminRequestError } from './webhook-admin.requests';

/**
 * The headers of every file of the inbox page: only its own script, style and requests (no
 * inline script, no other origin), never framed, no referrer, nothing cached.
 */
export const INBOX_PAGE_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
    "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'Cache-Control': 'no-store',
};

/** The page's routes under the admin path, with the file and content type each serves. */
export const INBOX_PAGE_ROUTES = {
  inbox: { file: 'inbox.html', contentType: 'text/html; charset=utf-8' },
  'inbox/inbox.js': { file: 'inbox.js', contentType: 'text/javascript; charset=utf-8' },
  'inbox/inbox.css': { file: 'inbox.css', contentType: 'text/css; charset=utf-8' },
} as const;

export type InboxPageRoute = keyof typeof INBOX_PAGE_ROUTES;

/** One file of the page, as an adapter writes it with {@link INBOX_PAGE_HEADERS}. */
export class InboxPageFile {
  constructor(
    readonly contentType: string,
    readonly body: string,
  ) {}
}

// NOTE: real files beside this one (copied to dist/ by the build), not strings in a module:
// they are read, linted by eye and diffed as what the browser gets, byte for byte.
const PAGE_DIR = join(__dirname, 'page');
const files = new Map<string, string>();

function pageText(file: string): string {
  let text = files.get(file);
  if (text === undefined) {
    try {
      text = readFileSync(join(PAGE_DIR, file), 'utf8');
    } catch {
      throw new Error(
        `The inbox page's ${file} is missing from ${PAGE_DIR}: the package was built without ` +
          'its page files (npm run build copies lib/admin/page/ to dist/admin/page/)',
      );
    }
    files.set(file, text);
  }
  return text;
}

/**
 * The file a page route serves.
 * @param requestPath the path the request named; the page asked for with a trailing slash
 * (`…/inbox/`) names its files from there, so the browser finds them on either path.
 */
export function inboxPageFile(route: InboxPageRoute, requestPath = ''): InboxPageFile {
  const { file, contentType } = INBOX_PAGE_ROUTES[route];
  let text = pageText(file);
  if (route === 'inbox' && requestPath.split('?')[0].endsWith('/')) {
    text = text.replaceAll('"inbox/inbox.', '"inbox.');
  }
  return new InboxPageFile(contentType, text);
}

// NOTE: keyed by the admin, because both admin surfaces are built from the engine's
// WebhookAdmin alone (the Express router's adminRouter() is handed nothing else).
const recorders = new WeakMap<WebhookAdmin, ActivityRecorder>();

/** Makes `recorder` the activity the admin routes of `admin` answer `GET activity` with. */
export function serveActivity(admin: WebhookAdmin, recorder: ActivityRecorder): void {
  recorders.set(admin, recorder);
}

/**
 * What `GET activity` answers: this process's last hour, minute by minute.
 * @throws WebhookAdminRequestError 404 when the admin was built without an engine's recorder.
 */
export function adminActivity(admin: WebhookAdmin): ActivitySnapshot {
  const recorder = recorders.get(admin);
  if (!recorder) {
    throw new WebhookAdminRequestError(
      404,
      'No activity is recorded for this WebhookAdmin: only the engine records it',
    );
  }
  return recorder.snapshot();
}
