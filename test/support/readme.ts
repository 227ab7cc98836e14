import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');

/**
 * The first fenced block of `language` (```ts, ```json…) in the section of the Markdown file at
 * `path` (from the repository root) whose heading starts with `heading`, up to the next heading;
 * undefined when there is none.
 */
export function docBlock(path: string, heading: string, language: string): string | undefined {
  const text = readFileSync(join(ROOT, path), 'utf8');
  const start = text.search(new RegExp(`^#+ ${heading}`, 'm'));
  if (start < 0) {
    return undefined;
  }
  const body = text.slice(text.indexOf('\n', start) + 1);
  const next = body.search(/^#+ /m);
  const section = next < 0 ? body : body.slice(0, next);
  const fence = '```';
  return new RegExp(`${fence}${language}\\n([\\s\\S]*?)${fence}`).exec(section)?.[1];
}
