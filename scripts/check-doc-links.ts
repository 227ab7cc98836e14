/**
 * Checks every relative link of README.md, docs/**.md, bench/README.md and the sample apps'
 * READMEs: the file (or folder) it names exists, and its `#anchor`, in a Markdown file, is a
 * heading there by GitHub's rules (lower-case, spaces to `-`, punctuation dropped, `-1`, `-2`…
 * after repeated headings) or an HTML `id` / `name`. Links in code are not links; URLs with a
 * scheme (`https:`, `mailto:`) are not checked.
 *
 *   npm run docs:links                checks the docs
 *   --root <dir>                      reads the Markdown from <dir> (default: the cwd)
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { argValue, docFiles, splitFences } from './docs-support';

const INLINE_LINK =
  /!?\[(?:[^[\]]|\[[^\]]*\])*\]\(\s*<?([^()\s>]*(?:\([^()\s]*\)[^()\s>]*)*)>?(?:\s+["'(][^)]*)?\)/g;
const REFERENCE_DEFINITION = /^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/;
const HTML_ANCHOR = /<[a-z][^>]*\s(?:id|name)=["']([^"']+)["']/gi;

/** A heading's anchor as GitHub makes it, before the `-1`, `-2` of repeats. */
export function githubSlug(heading: string): string {
  const text = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1') // links and images: their text
    .replace(/<[^>]+>/g, '') // inline HTML
    .replace(/[`*]/g, '');
  return text
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, '')
    .replace(/ /g, '-');
}

/** Every anchor a Markdown text has: its headings' slugs, repeats numbered, and HTML ids. */
export function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const counts = new Map<string, number>();
  for (const line of splitFences(markdown).prose) {
    const heading = /^ {0,3}#{1,6}\s+(.*?)(?:\s+#+)?\s*$/.exec(line);
    if (heading) {
      const slug = githubSlug(heading[1]);
      const seen = counts.get(slug) ?? 0;
      counts.set(slug, seen + 1);
      anchors.add(seen === 0 ? slug : `${slug}-${seen}`);
    }
    for (const match of line.matchAll(HTML_ANCHOR)) anchors.add(match[1]);
  }
  return anchors;
}

/** The link targets of one line of prose, code spans left out. */
function targetsOf(line: string): string[] {
  const prose = line.replace(/(`+)[\s\S]*?\1/g, '');
  const targets = [...prose.matchAll(INLINE_LINK)].map((match) => match[1]);
  const definition = REFERENCE_DEFINITION.exec(prose);
  return definition ? [...targets, definition[1]] : targets;
}

/** Each dead relative link of one Markdown file, as `<file>:<line>: <problem>`. */
export function deadLinks(
  root: string,
  docFile: string,
  anchorCache = new Map<string, Set<string>>(),
): string[] {
  const problems: string[] = [];
  const anchors = (file: string): Set<string> => {
    let found = anchorCache.get(file);
    if (!found) anchorCache.set(file, (found = anchorsOf(fs.readFileSync(file, 'utf8'))));
    return found;
  };
  const prose = splitFences(fs.readFileSync(path.join(root, docFile), 'utf8')).prose;
  prose.forEach((line, index) => {
    for (const target of targetsOf(line)) {
      if (target === '' || /^[a-z][a-z0-9+.-]*:|^\/\//i.test(target)) continue;
      const [rawPath, anchor] = target.split('#', 2);
      const linked = decodeURIComponent(rawPath);
      const file = linked.startsWith('/')
        ? path.join(root, linked)
        : path.resolve(root, path.dirname(docFile), linked || path.basename(docFile));
      const where = `${docFile}:${index + 1}`;
      if (!fs.existsSync(file)) {
        problems.push(`${where}: ${target}: no such file ${path.relative(root, file)}`);
      } else if (anchor && file.endsWith('.md') && !anchors(file).has(decodeURIComponent(anchor))) {
        problems.push(`${where}: ${target}: no heading #${anchor} in ${path.relative(root, file)}`);
      }
    }
  });
  return problems;
}

function main(argv: readonly string[]): number {
  const root = path.resolve(argValue(argv, '--root') ?? process.cwd());
  const files = docFiles(root);
  const cache = new Map<string, Set<string>>();
  const problems = files.flatMap((file) => deadLinks(root, file, cache));
  for (const problem of problems) console.error(problem);
  console.log(`${files.length} file(s) checked: ${problems.length} dead link(s).`);
  return problems.length > 0 ? 1 : 0;
}

if (require.main === module) process.exitCode = main(process.argv.slice(2));
