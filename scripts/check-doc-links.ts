/**
 * Checks the links of README.md, docs/**.md, bench/README.md, the sample apps' READMEs and any
 * other Markdown file the package ships, for a reader on GitHub and for one inside
 * node_modules/nestjs-payment-webhooks, who has only the files `npm pack` puts in the tarball:
 *
 * - A relative link names a file (or folder) that exists, and its `#anchor`, in a Markdown file,
 *   is a heading there by GitHub's rules (lower-case, spaces to `-`, punctuation dropped, `-1`,
 *   `-2`… after repeated headings) or an HTML `id` / `name`.
 * - From a shipped file (the list of `npm pack --dry-run --json`), a relative link names a
 *   shipped file too; anything else is linked absolutely, into the repository.
 * - An absolute link into package.json's `repository` (`…/blob/main/<file>`, `…/tree/main/<dir>`)
 *   names a path of the checkout, and its anchor a heading there, so it is not dead on GitHub.
 *
 * Links in code are not links; other URLs (`https:`, `mailto:`) are not checked.
 *
 *   npm run docs:links                checks the docs
 *   --root <dir>                      the package to check: its package.json, Markdown and files
 *                                     (default: the cwd)
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { argValue, docFiles, splitFences } from './docs-support';
import { PackageContents, packageContents } from './package-contents';

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

/** The branch absolute links into the repository name. */
const BRANCH = 'main';

/** Where the links of one Markdown file are checked from. */
interface LinkSource {
  readonly root: string;
  readonly docFile: string;
  readonly contents: PackageContents;
  readonly anchors: (file: string) => Set<string>;
}

/** A path relative to the root, with `/` separators (`''` for the root itself). */
function fromRoot(root: string, file: string): string {
  return path.relative(root, file).split(path.sep).join('/');
}

/** Whether `npm pack` ships the file, or, for a folder, something in it. */
function isShipped(contents: PackageContents, file: string): boolean {
  if (file === '' || contents.files.has(file)) return true;
  for (const shipped of contents.files) if (shipped.startsWith(`${file}/`)) return true;
  return false;
}

/** The address of a checkout path in the repository on GitHub, or a hint when none is known. */
function repositoryAddress(source: LinkSource, file: string, anchor?: string): string {
  const { repository } = source.contents;
  if (!repository) return 'an absolute URL (package.json has no GitHub repository)';
  const kind = fs.statSync(path.join(source.root, file)).isDirectory() ? 'tree' : 'blob';
  return `${repository}/${kind}/${BRANCH}/${file}${anchor ? `#${anchor}` : ''}`;
}

/** What is wrong with an anchor into an existing file, if anything. */
function anchorProblem(source: LinkSource, file: string, anchor?: string): string | undefined {
  if (!anchor || !file.endsWith('.md')) return undefined;
  const anchors = source.anchors(path.join(source.root, file));
  return anchors.has(decodeURIComponent(anchor)) ? undefined : `no heading #${anchor} in ${file}`;
}

/** What is wrong with a relative link, if anything. */
function relativeProblem(source: LinkSource, target: string): string | undefined {
  const [rawPath, anchor] = target.split('#', 2);
  const linked = decodeURIComponent(rawPath);
  const { root, docFile } = source;
  const absolute = linked.startsWith('/')
    ? path.join(root, linked)
    : path.resolve(root, path.dirname(docFile), linked || path.basename(docFile));
  const file = fromRoot(root, absolute);
  if (!fs.existsSync(absolute)) return `no such file ${file}`;
  if (isShipped(source.contents, docFile) && !isShipped(source.contents, file)) {
    return (
      `${file} is not in the package, so the link is dead in node_modules: link to ` +
      `${repositoryAddress(source, file, anchor)} instead, or add the file to "files" in ` +
      `package.json`
    );
  }
  return anchorProblem(source, file, anchor);
}

/** What is wrong with an absolute link into the repository's files, if anything; others pass. */
function repositoryProblem(source: LinkSource, target: string): string | undefined {
  const { repository } = source.contents;
  if (!repository || !target.toLowerCase().startsWith(`${repository.toLowerCase()}/`)) {
    return undefined;
  }
  const rest = target.slice(repository.length + 1);
  const link = /^(blob|tree)\/([^/#?]+)\/?([^#?]*)[^#]*(?:#(.*))?$/.exec(rest);
  if (!link) return undefined; // issues, pull requests, releases
  const [, kind, branch, rawPath, anchor] = link;
  if (branch !== BRANCH) return `link into the ${BRANCH} branch, not ${branch}`;
  const file = decodeURIComponent(rawPath).replace(/\/+$/, '');
  const absolute = path.join(source.root, file);
  if (fromRoot(source.root, absolute).startsWith('..') || !fs.existsSync(absolute)) {
    return `no such file ${file} in the checkout, so the link is dead on GitHub: fix the path`;
  }
  const isFolder = fs.statSync(absolute).isDirectory();
  if (isFolder !== (kind === 'tree')) {
    const what = isFolder ? 'a folder' : 'a file';
    return `${file} is ${what}: link to ${repositoryAddress(source, file, anchor)}`;
  }
  return anchorProblem(source, file, anchor);
}

/**
 * Each dead link of one Markdown file, as `<file>:<line>: <link>: <problem>`; `contents` holds
 * what the package ships and its repository (none: relative links are checked in the checkout).
 */
export function deadLinks(
  root: string,
  docFile: string,
  contents: PackageContents = { files: new Set() },
  anchorCache = new Map<string, Set<string>>(),
): string[] {
  const anchors = (file: string): Set<string> => {
    let found = anchorCache.get(file);
    if (!found) anchorCache.set(file, (found = anchorsOf(fs.readFileSync(file, 'utf8'))));
    return found;
  };
  const source: LinkSource = { root, docFile, contents, anchors };
  const problems: string[] = [];
  const prose = splitFences(fs.readFileSync(path.join(root, docFile), 'utf8')).prose;
  prose.forEach((line, index) => {
    for (const target of targetsOf(line)) {
      if (target === '') continue;
      const problem = /^[a-z][a-z0-9+.-]*:|^\/\//i.test(target)
        ? repositoryProblem(source, target)
        : relativeProblem(source, target);
      if (problem) problems.push(`${docFile}:${index + 1}: ${target}: ${problem}`);
    }
  });
  return problems;
}

/** The Markdown files to check: those docFiles() names and every shipped one. */
function markdownFiles(root: string, contents: PackageContents): string[] {
  const shipped = [...contents.files].filter((file) => file.endsWith('.md'));
  return [...new Set([...docFiles(root), ...shipped])].sort();
}

function main(argv: readonly string[]): number {
  const root = path.resolve(argValue(argv, '--root') ?? process.cwd());
  const contents = packageContents(root);
  const files = markdownFiles(root, contents);
  const cache = new Map<string, Set<string>>();
  const problems = files.flatMap((file) => deadLinks(root, file, contents, cache));
  for (const problem of problems) console.error(problem);
  const shipped = files.filter((file) => contents.files.has(file)).length;
  console.log(
    `${files.length} file(s) checked, ${shipped} of them in the package: ` +
      `${problems.length} dead link(s).`,
  );
  return problems.length > 0 ? 1 : 0;
}

if (require.main === module) process.exitCode = main(process.argv.slice(2));
