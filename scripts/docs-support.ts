import * as fs from 'node:fs';
import * as path from 'node:path';

/** The value after a flag (`--root dir`), if given. */
/**
 * The libraries the docs scripts' checker reads `lib/` with: what it is compiled against (Node's
 * types and ES2022), not every `@types` package installed nor the DOM, which halves its files.
 */
export const LIB_TYPES = { types: ['node'], lib: ['lib.es2022.d.ts'] };

export function argValue(argv: readonly string[], flag: string): string | undefined {
  const index = argv.indexOf(flag);
  return index >= 0 ? argv[index + 1] : undefined;
}

/** Inline code that survives backticks in the text. */
export function codeSpan(text: string): string {
  const longest = Math.max(0, ...(text.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(longest + 1);
  return longest > 0 ? `${fence} ${text} ${fence}` : `${fence}${text}${fence}`;
}

/** A table cell: one line, with `|` escaped (GitHub unescapes it inside code too). */
export function tableCell(text: string): string {
  return text.replace(/\s+/g, ' ').replace(/\|/g, '\\|');
}

/** The first line (1-based) where two texts differ, with both versions of it. */
export function firstDifference(
  found: string,
  expected: string,
): { line: number; found?: string; expected?: string } {
  const a = found.split('\n');
  const b = expected.split('\n');
  let line = 0;
  while (line < a.length && line < b.length && a[line] === b[line]) line++;
  return { line: line + 1, found: a[line], expected: b[line] };
}

/**
 * The Markdown files the docs checks read, relative to the root, sorted: README.md, docs/**,
 * bench/README.md and each sample app's README.md, those that exist.
 */
export function docFiles(root: string): string[] {
  const files = ['README.md', 'bench/README.md'];
  for (const entry of fs.readdirSync(root, { withFileTypes: true })) {
    if (entry.isDirectory() && entry.name.startsWith('sample-'))
      files.push(`${entry.name}/README.md`);
  }
  const walk = (dir: string): void => {
    if (!fs.existsSync(path.join(root, dir))) return;
    for (const entry of fs.readdirSync(path.join(root, dir), { withFileTypes: true })) {
      const relative = `${dir}/${entry.name}`;
      if (entry.isDirectory()) walk(relative);
      else if (entry.name.endsWith('.md')) files.push(relative);
    }
  };
  walk('docs');
  return files.filter((file) => fs.existsSync(path.join(root, file))).sort();
}

/** A fenced code block: its info string, first line of content (1-based) and content lines. */
export interface FencedBlock {
  readonly info: string;
  readonly line: number;
  readonly lines: readonly string[];
}

/** Splits Markdown into fenced blocks and the prose lines outside them (code lines blanked). */
export function splitFences(text: string): { blocks: FencedBlock[]; prose: string[] } {
  const blocks: FencedBlock[] = [];
  const prose: string[] = [];
  let open: { fence: string; info: string; line: number; lines: string[] } | undefined;
  text.split('\n').forEach((line, index) => {
    const fence = /^ {0,3}(`{3,}|~{3,})\s*([^`\s]*)/.exec(line);
    if (open) {
      prose.push('');
      if (
        fence &&
        fence[1][0] === open.fence[0] &&
        fence[1].length >= open.fence.length &&
        !fence[2]
      ) {
        blocks.push({ info: open.info, line: open.line, lines: open.lines });
        open = undefined;
      } else {
        open.lines.push(line);
      }
    } else if (fence) {
      prose.push('');
      open = { fence: fence[1], info: fence[2].toLowerCase(), line: index + 2, lines: [] };
    } else {
      prose.push(line);
    }
  });
  return { blocks, prose };
}
