import { existsSync, readFileSync } from 'node:fs';
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

const JAVASCRIPT = 'text/javascript; charset=utf-8';

/**
 * The page's script, one native ES module a concern, as the browser loads them: `inbox.js`
 * imports the others. A module left out here is a 404 the page fails on, which
 * inbox-page-modules.spec.ts catches.
 */
export const INBOX_PAGE_MODULES = [
  'inbox.js',
  'activity-charts.js',
  'admin-api.js',
  'backfills.js',
  'confirm-dialog.js',
  'dom.js',
  'event-detail.js',
  'event-list.js',
  'event-status.js',
  'event-timeline.js',
  'failure-groups.js',
  'pauses.js',
  'recoveries.js',
  'refresh.js',
  'replay-jobs.js',
  'status-line.js',
] as const;

export type InboxPageModule = (typeof INBOX_PAGE_MODULES)[number];

/** The route of a page file under the admin path, with the file and content type it serves. */
export interface InboxPageFileRoute {
  readonly file: string;
  readonly contentType: string;
}

export type InboxPageRoute = 'inbox' | 'inbox/inbox.css' | `inbox/${InboxPageModule}`;

/** The page's routes under the admin path, with the file and content type each serves. */
export const INBOX_PAGE_ROUTES: Readonly<Record<InboxPageRoute, InboxPageFileRoute>> = {
  inbox: { file: 'inbox.html', contentType: 'text/html; charset=utf-8' },
  'inbox/inbox.css': { file: 'inbox.css', contentType: 'text/css; charset=utf-8' },
  ...(Object.fromEntries(
    INBOX_PAGE_MODULES.map((file) => [`inbox/${file}`, { file, contentType: JAVASCRIPT }]),
  ) as Record<`inbox/${InboxPageModule}`, InboxPageFileRoute>),
};

/** Whether `name` (a path under the admin routes, without slashes around it) is a page file. */
export function isInboxPageRoute(name: string): name is InboxPageRoute {
  return Object.hasOwn(INBOX_PAGE_ROUTES, name);
}

/** One file of the page, as an adapter writes it with {@link INBOX_PAGE_HEADERS}. */
export class InboxPageFile {
  constructor(
    readonly contentType: string,
    readonly body: string,
  ) {}
}

// NOTE: real files beside this one (copied to dist/ by the build), not strings in a module:
// they are type-checked, linted and diffed as what the browser gets, byte for byte.
const PAGE_DIR = join(__dirname, 'page');
const files = new Map<string, string>();

function pageText(file: string): string {
  let text = files.get(file);
  if (text === undefined) {
    try {
      text = readFileSync(join(PAGE_DIR, file), 'utf8');
    } catch {
      const missing = missingFiles();
      throw new Error(
        `The inbox page is missing ${(missing.length > 0 ? missing : [file]).join(', ')} in ` +
          `${PAGE_DIR}: the package was built without its page files (npm run build copies ` +
          'lib/admin/page/ to dist/admin/page/)',
      );
    }
    files.set(file, text);
  }
  return text;
}

/** Every page file absent from PAGE_DIR: one error names all a partial copy lacks, not the first. */
function missingFiles(): string[] {
  return Object.values(INBOX_PAGE_ROUTES)
    .map(({ file }) => file)
    .filter((file) => !existsSync(join(PAGE_DIR, file)));
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
    text = text.replaceAll(/(src|href)="inbox\//g, '$1="');
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
