import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');

/**
 * The first fenced block of `language` (```ts, ```json…) in the README section whose heading
 * starts with `heading`, up to the next heading; undefined when there is none.
 */
export function readmeBlock(heading: string, language: string): string | undefined {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const start = readme.search(new RegExp(`^#+ ${heading}`, 'm'));
  if (start < 0) {
    return undefined;
  }
  const body = readme.slice(readme.indexOf('\n', start) + 1);
  const next = body.search(/^#+ /m);
  const section = next < 0 ? body : body.slice(0, next);
  const fence = '```';
  return new RegExp(`${fence}${language}\\n([\\s\\S]*?)${fence}`).exec(section)?.[1];
}
