import { resolve, sep } from 'node:path';

/** Frames kept per error: enough to reach the handler's own code through a few helper calls. */
const MAX_FRAMES = 10;

/** Longest frame line kept; paths deep inside node_modules can be long. */
const MAX_FRAME_CHARS = 300;

/**
 * Longest failure text with its frames: `last_error` keeps at most this much, so the frames
 * appended after the message stop at a whole line within it.
 */
export const MAX_FAILURE_TEXT = 2000;

/** A line of a stack that is a frame: `    at …`. */
export const FRAME = /^\s+at\s/;

/**
 * Where this package's own code is (its `dist/`, or `lib/` run from source): frames there say
 * how the package called the handler, which is the same for every failure.
 */
const PACKAGE_CODE = `${resolve(__dirname, '..')}${sep}`;

/** `Name: message`, the first line of every failure text. */
export function describeError(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

/**
 * The first frames of the error's stack, each on its own indented line, as the app's readers
 * want them: paths relative to `root` (the app's directory, one style whether the app is an ES
 * module or CommonJS), without Node's internal frames (the promise machinery every async handler
 * shows), and each run of this package's own frames folded into one line
 * (`… 4 frames of nestjs-payment-webhooks`). With source maps on (`node --enable-source-maps`)
 * the frames are the app's TypeScript lines.
 */
export function stackFrames(error: unknown, root: string = process.cwd()): string[] {
  const stack = error instanceof Error && typeof error.stack === 'string' ? error.stack : '';
  const frames: string[] = [];
  let folded = 0;
  const fold = () => {
    if (folded > 0) {
      frames.push(`    … ${folded} frame${folded === 1 ? '' : 's'} of nestjs-payment-webhooks`);
      folded = 0;
    }
  };
  for (const line of stack.split('\n')) {
    if (frames.length === MAX_FRAMES) {
      break;
    }
    if (!FRAME.test(line) || line.includes('node:internal/')) {
      continue;
    }
    if (line.includes(PACKAGE_CODE)) {
      folded += 1;
      continue;
    }
    fold();
    const frame = `    ${relativeToApp(line.trim(), root)}`;
    frames.push(frame.length > MAX_FRAME_CHARS ? `${frame.slice(0, MAX_FRAME_CHARS - 1)}…` : frame);
  }
  if (frames.length < MAX_FRAMES) {
    fold();
  }
  return frames;
}

/**
 * `text` with the app's directory taken off its paths, written as a path or as a `file://` URL
 * (an ES module's frames): `src/shop.ts:10:5`.
 */
export function relativeToApp(text: string, root: string = process.cwd()): string {
  const prefix = root.endsWith(sep) ? root : `${root}${sep}`;
  return text.split(`file://${prefix}`).join('').split(prefix).join('');
}

/** The message, then as many whole frame lines as fit in {@link MAX_FAILURE_TEXT}. */
function withFrames(first: string, blocks: readonly (readonly string[])[]): string {
  let text = first;
  for (const block of blocks) {
    for (const line of block) {
      if (text.length + 1 + line.length > MAX_FAILURE_TEXT) {
        return text;
      }
      text += `\n${line}`;
    }
  }
  return text;
}

/** One error with its first frames, for a log line. */
export function describeWithStack(error: unknown): string {
  return withFrames(describeError(error), [stackFrames(error)]);
}

/**
 * What `last_error` keeps for the handlers that failed on one attempt: first the line it has
 * always held (`key: Name: message`, joined by `; `), so readers of that line see the same;
 * then each handler's first frames, under its key when several failed.
 */
export function describeFailures(
  failures: readonly { readonly key: string; readonly error: unknown }[],
): { readonly summary: string; readonly detail: string } {
  const summary = failures.map((f) => `${f.key}: ${describeError(f.error)}`).join('; ');
  const blocks = failures.map((f) => {
    const frames = stackFrames(f.error);
    return failures.length > 1 && frames.length > 0 ? [`  ${f.key}:`, ...frames] : frames;
  });
  return { summary, detail: withFrames(summary, blocks) };
}
