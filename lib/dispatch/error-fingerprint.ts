import { createHash } from 'node:crypto';
import { sep } from 'node:path';
import { describeError, FRAME, relativeToApp, stackFrames } from './handler-failure';

/** Ids and numbers a message carries: masked so that failures of one cause read alike. */
const MASKS: readonly (readonly [RegExp, string])[] = [
  [/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi, '<uuid>'],
  // NOTE: provider ids (`pi_3Nk…`, `evt_1…`, `tr_WDqY…`) and long hex or base64-ish tokens.
  [/\b[A-Za-z]{1,12}_(?=[A-Za-z0-9_]*\d)[A-Za-z0-9_]{4,}\b/g, '<id>'],
  [/\b(?=[A-Za-z0-9]*\d)[A-Za-z0-9]{16,}\b/g, '<id>'],
  [/\d+/g, '<n>'],
];

/** A frame's function and file, without its line and column (which move with every edit). */
const FRAME_PLACE = /^\s*at\s+(?:(.*?)\s+\()?(.*?)(?::\d+)?(?::\d+)?\)?$/;

/** The message of `error` with ids and numbers masked. */
export function maskedMessage(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return MASKS.reduce((text, [pattern, mask]) => text.replace(pattern, mask), message);
}

/** The error's class: its `name`, or the type of what was thrown. */
export function errorClassOf(error: unknown): string {
  if (error instanceof Error) {
    return error.name || error.constructor.name || 'Error';
  }
  return error === null ? 'null' : typeof error;
}

/**
 * Where the error came from in the app's own code: its first frame outside `node_modules` and
 * Node's internals, as function and file relative to `root`, or `''` when it has none.
 */
export function firstAppFrame(error: unknown, root: string = process.cwd()): string {
  for (const frame of stackFrames(error, root)) {
    if (!FRAME.test(frame) || frame.includes(`node_modules${sep}`) || frame.includes('(node:')) {
      continue;
    }
    const match = FRAME_PLACE.exec(frame);
    if (match) {
      return [match[1], match[2]].filter(Boolean).join(' ');
    }
  }
  return '';
}

/**
 * What failures of one cause share: a digest (16 hex characters) of the error's class, its
 * message with ids and numbers masked, and its first frame in the app's code.
 */
export function errorFingerprint(error: unknown, root: string = process.cwd()): string {
  return createHash('sha256')
    .update([errorClassOf(error), maskedMessage(error), firstAppFrame(error, root)].join('\n'))
    .digest('hex')
    .slice(0, 16);
}

/** The error as history keeps it: `Name: message`, then its first frames, paths relative. */
export function readableError(error: unknown, root: string = process.cwd()): string {
  return [relativeToApp(describeError(error), root), ...stackFrames(error, root)].join('\n');
}
