import { shellWord as quotedWord } from '../telemetry/operator-hints';
import { safeJson, safeText } from '../telemetry/safe-text';

/** A stream the CLI writes to. */
export interface CliStream {
  write(text: string): unknown;
  /** True when a person is watching (progress bars redraw in place). */
  readonly isTTY?: boolean;
}

/** Where the CLI reads its environment and writes its output; the process's own by default. */
export interface CliIo {
  /** Results: tables, JSON, signed deliveries. */
  readonly stdout: CliStream;
  /** Errors, warnings and progress. */
  readonly stderr: CliStream;
  /** Environment variables (`DATABASE_URL`). */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Reads standard input to the end, for `--file -`. */
  readStdin(): Promise<string>;
  /** The current time. */
  now(): Date;
  /**
   * Calls `listener` on the first Ctrl-C (SIGINT) instead of ending the process; a second one
   * ends it as usual. Left out where nobody can press it.
   * @returns a function that stops listening.
   */
  onInterrupt?(listener: () => void): () => void;
}

/** The running process's streams and environment. */
export function processIo(): CliIo {
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
    async readStdin() {
      const chunks: Buffer[] = [];
      for await (const chunk of process.stdin) {
        chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk)));
      }
      return Buffer.concat(chunks).toString('utf8');
    },
    now: () => new Date(),
    onInterrupt(listener) {
      process.once('SIGINT', listener);
      return () => process.off('SIGINT', listener);
    },
  };
}

/**
 * Writes `value` as pretty JSON and a newline. Dates become ISO strings; strings are made safe
 * for the terminal by `safeJson()` (card numbers masked, control characters as `\u` escapes).
 */
export function printJson(io: CliIo, value: unknown): void {
  io.stdout.write(`${safeJson(value, 2)}\n`);
}

/**
 * Writes `value` as pretty JSON exactly, for output that is the user's own input made into
 * something to send on (a signed delivery): masking a byte of it would break its signature.
 */
export function printExactJson(io: CliIo, value: unknown): void {
  io.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

/**
 * Writes lines to stdout as given: a value from a delivery or a stored row goes through
 * `safeText()` (or `table()`) before it is put in a line.
 */
export function printLines(io: CliIo, lines: readonly string[]): void {
  io.stdout.write(lines.length === 0 ? '' : `${lines.join('\n')}\n`);
}

/**
 * Lays out rows as aligned columns under a header; the last column is not padded. Every cell
 * goes through `safeText()` first, so stored values can neither drive the terminal nor break
 * the layout.
 * @example table(['ID', 'STATUS'], [['1', 'dead']]) // ['ID  STATUS', '1   dead']
 */
export function table(
  header: readonly string[],
  unsafeRows: readonly (readonly string[])[],
): string[] {
  const rows = unsafeRows.map((row) => row.map((cell) => safeText(cell)));
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => (row[column] ?? '').length)),
  );
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, column) => (column === cells.length - 1 ? cell : cell.padEnd(widths[column])))
      .join('  ')
      .trimEnd();
  return [line(header), ...rows.map(line)];
}

/**
 * Untrusted text of several lines (an error with its stack frames) as lines that each start
 * with `indent`: line breaks stay line breaks, every other control character is escaped and
 * card numbers are masked, as `safeText()` does.
 * @example indentedLines('Error: boom\n    at f (src/a.ts:1:1)', '    ')
 * // ['    Error: boom', '        at f (src/a.ts:1:1)']
 */
export function indentedLines(unsafe: string, indent: string): string[] {
  return safeText(unsafe.replace(/\s+$/, ''), { keepLineFeeds: true })
    .split('\n')
    .map((line) => `${indent}${line}`.trimEnd());
}

/**
 * A value as one word of a command to copy into a shell: as it is when it holds only plain
 * characters, else in single quotes. Made safe for the terminal by `safeText()`.
 * @example shellWord('Orders.paid') // 'Orders.paid'; shellWord("it's") // `'it'\''s'`
 */
export function shellWord(value: string): string {
  return safeText(quotedWord(value));
}

/** `850 ms`, `12 s`, `5 min 2 s`: how long something took, to the millisecond below a second. */
export function describeElapsed(ms: number): string {
  return ms < 1000 ? `${Math.max(0, Math.round(ms))} ms` : describeDuration(ms);
}

/** `2 d 3 h`, `5 min 2 s`, `12 s`: a duration in its two largest units. */
export function describeDuration(ms: number): string {
  const units: readonly [string, number][] = [
    ['d', 86_400_000],
    ['h', 3_600_000],
    ['min', 60_000],
    ['s', 1000],
  ];
  const index = units.findIndex(([, size]) => ms >= size);
  if (index === -1) {
    return '0 s';
  }
  const [name, size] = units[index];
  const major = Math.floor(ms / size);
  const parts = [`${major} ${name}`];
  const next = units[index + 1];
  if (next) {
    const minor = Math.floor((ms - major * size) / next[1]);
    if (minor > 0) {
      parts.push(`${minor} ${next[0]}`);
    }
  }
  return parts.join(' ');
}
