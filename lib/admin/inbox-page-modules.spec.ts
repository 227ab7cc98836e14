import { readdirSync, readFileSync } from 'node:fs';
import { join, posix } from 'node:path';
import * as ts from 'typescript';
import {
  INBOX_PAGE_MODULES,
  INBOX_PAGE_ROUTES,
  inboxPageFile,
  InboxPageRoute,
  isInboxPageRoute,
} from './inbox-page';

/**
 * What `npm run typecheck` cannot see of the page's modules: the browser loads each by its URL,
 * so each one the page reaches must be served, under the name it is imported by.
 */

const PAGE = join(__dirname, 'page');
const pageText = (file: string) => readFileSync(join(PAGE, file), 'utf8');

/** The URL paths, under the admin routes, of the module scripts the HTML loads. */
function htmlModules(): string[] {
  const html = pageText('inbox.html');
  const scripts = [...html.matchAll(/<script\b([^>]*)>/g)].map((match) => match[1]);
  return scripts.map((attributes) => {
    expect(attributes).toMatch(/\btype="module"/);
    return /\bsrc="([^"]+)"/.exec(attributes)![1];
  });
}

/** The specifiers of a module's static and dynamic imports and re-exports. */
function importsOf(text: string): string[] {
  return ts.preProcessFile(text, true, true).importedFiles.map((file) => file.fileName);
}

/** Every module the page loads, followed from the HTML through the imports as a browser does. */
function loadedModules(): Map<string, string[]> {
  const loaded = new Map<string, string[]>();
  const pending = htmlModules();
  for (let path = pending.pop(); path !== undefined; path = pending.pop()) {
    if (loaded.has(path)) continue;
    expect({ path, served: isInboxPageRoute(path) }).toEqual({ path, served: true });
    const specifiers = importsOf(pageText(INBOX_PAGE_ROUTES[path as InboxPageRoute].file));
    loaded.set(path, specifiers);
    pending.push(...specifiers.map((specifier) => posix.join(posix.dirname(path), specifier)));
  }
  return loaded;
}

describe("the inbox page's modules", () => {
  it('imports each other by relative paths ending in .js, which a browser loads as they are', () => {
    for (const [path, specifiers] of loadedModules()) {
      for (const specifier of specifiers) {
        expect({ path, specifier }).toEqual({
          path,
          specifier: expect.stringMatching(/^\.\.?\/[^?#]+\.js$/),
        });
      }
    }
  });

  it('are served, every one the page loads and no other, as JavaScript', () => {
    const loaded = [...loadedModules().keys()].sort();
    expect(loaded).toEqual(INBOX_PAGE_MODULES.map((file) => `inbox/${file}`).sort());
    for (const path of loaded) {
      const file = inboxPageFile(path as InboxPageRoute);
      expect({ path, contentType: file.contentType }).toEqual({
        path,
        contentType: 'text/javascript; charset=utf-8',
      });
      expect(file.body).toBe(pageText(INBOX_PAGE_ROUTES[path as InboxPageRoute].file));
    }
  });

  it('are all the JavaScript of the page folder, each asking for type checking', () => {
    const scripts = readdirSync(PAGE).filter((file) => file.endsWith('.js'));
    expect(scripts.sort()).toEqual([...INBOX_PAGE_MODULES].sort());
    for (const file of scripts) {
      expect({ file, first: pageText(file).split('\n')[0] }).toEqual({
        file,
        first: '// @ts-check',
      });
    }
  });

  it('are named from the page asked for with a trailing slash too', () => {
    const html = inboxPageFile('inbox', '/ops/webhooks/inbox/').body;
    expect(html).toContain('<script type="module" src="inbox.js"></script>');
    expect(html).toContain('<link rel="stylesheet" href="inbox.css" />');
    expect(html).not.toMatch(/(src|href)="inbox\//);
  });
});
