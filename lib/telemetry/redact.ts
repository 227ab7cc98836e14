import { INVISIBLE_FORMAT_CHARACTERS } from './invisible-characters';

/**
 * What the card and CVV patterns look through: invisible characters (and the bidirectional
 * marks) are skipped, full-width digits read as digits, and the other spaces and dashes a
 * number may be grouped with as a space or a dash.
 */
const FOLDED = new RegExp(
  `[${INVISIBLE_FORMAT_CHARACTERS}\u200e\u200f\u202a-\u202e\u2066-\u2069` +
    '\uff10-\uff19\u00a0\u2007\u202f\u3000\u2010-\u2013\u2212\uff0d]',
);
const SKIPPED = new RegExp(
  `[${INVISIBLE_FORMAT_CHARACTERS}\u200e\u200f\u202a-\u202e\u2066-\u2069]`,
);
const SPACES = /[\u00a0\u2007\u202f\u3000]/;

/** `char` as the patterns read it: '' when skipped. */
function fold(char: string): string {
  if (SKIPPED.test(char)) return '';
  const code = char.charCodeAt(0);
  if (code >= 0xff10 && code <= 0xff19) return String(code - 0xff10);
  if (SPACES.test(char)) return ' ';
  return '-';
}

/**
 * Runs `replace` on `text` as the patterns read it, and writes each replaced span back over the
 * original characters it came from; the text between the spans is kept as it was.
 */
function replaceFolded(
  text: string,
  pattern: RegExp,
  replace: (match: string, ...groups: string[]) => string,
): string {
  if (!FOLDED.test(text)) {
    return text.replace(pattern, replace);
  }
  let folded = '';
  /** For each folded unit, the index of the original unit it came from. */
  const origin: number[] = [];
  for (let index = 0; index < text.length; index += 1) {
    const char = text[index];
    const read = FOLDED.test(char) ? fold(char) : char;
    folded += read;
    if (read !== '') origin.push(index);
  }
  origin.push(text.length);
  let out = '';
  let kept = 0;
  for (const match of folded.matchAll(pattern)) {
    const replacement = replace(match[0], ...(match.slice(1) as string[]));
    if (replacement === match[0]) continue;
    const start = origin[match.index];
    const end = origin[match.index + match[0].length - 1] + 1;
    out += text.slice(kept, start) + replacement;
    kept = end;
  }
  return out + text.slice(kept);
}

/**
 * Digit runs that may be a card number: 13 to 19 digits in a row, or grouped the way cards are
 * printed (4-4-4-4, 4-4-4-4-3, 4-6-5, 4-6-4) with spaces or dashes. Letters, `_` and any other
 * non-digit may touch them (`pan_4111…`, `card4111…`); a longer digit run is not one.
 * NOTE: a group right after `<digit>-` is not taken as a card's first, so the digit groups of a
 * UUID are never masked.
 */
const PAN_CANDIDATE =
  /(?<!\d)(?:\d{13,19}|(?<!\d-)(?:\d{4}([ -])\d{4}\1\d{4}\1\d{4}(?:\1\d{3})?|\d{4}([ -])\d{6}\2\d{4,5}))(?!\d)/g;
const CVV_FIELD =
  /(["']?\b(?:cvv2?|cvc2?|cid|csc|security_?code|card_?code|cvn)\b["']?\s*[:=]\s*["']?)(\d{3,4})(["']?)/gi;

/** True when the digits pass the Luhn check, as every card number does. */
function passesLuhn(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i += 1) {
    let digit = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) {
      digit *= 2;
      if (digit > 9) {
        digit -= 9;
      }
    }
    sum += digit;
  }
  return sum % 10 === 0;
}

/**
 * Masks what must never reach a log: card numbers (13 to 19 digits, in a row or grouped with
 * spaces or dashes, passing the Luhn check, also when a letter or `_` touches them) keep their
 * first six and last four digits, and CVV/CVC-like fields lose their value. Both are found
 * through invisible characters (a zero-width space, a soft hyphen, a bidirectional mark) and in
 * full-width digits; the masked span replaces them, and the text around is left as it was.
 *
 * Only Luhn-valid runs are masked: every issued card number passes the check, while the long
 * numbers that fill payment logs (millisecond timestamps, provider payment and order ids) mostly
 * do not, and stay readable.
 * @example
 * redact('pan=4111 1111 1111 1111 cvv=123') // 'pan=411111******1111 cvv=***'
 */
export function redact(text: string): string {
  // NOTE: a W3C trace id (32 lower-case hex characters, a letter among them, standing alone)
  // is kept whole: about one in 580 holds a Luhn-valid run of digits, and a masked trace id
  // no longer finds its trace.
  const ids = traceIds(text);
  if (ids.length === 0) {
    return redactText(text);
  }
  let out = '';
  let kept = 0;
  for (const start of ids) {
    out += redactText(text.slice(kept, start)) + text.slice(start, start + 32);
    kept = start + 32;
  }
  return out + redactText(text.slice(kept));
}

/**
 * Where `text` has a trace id: 32 lower-case hex characters with a letter among them, not part
 * of a longer word (letters, digits, `_`). NOTE: one pass over the characters; a regular
 * expression with a lookaround tried at every position cost each log line several times more.
 */
function traceIds(text: string): number[] {
  const starts: number[] = [];
  let run = 0;
  let letters = 0;
  for (let index = 0; index <= text.length; index += 1) {
    const code = index < text.length ? text.charCodeAt(index) : -1;
    const digit = code >= 48 && code <= 57;
    const letter = code >= 97 && code <= 102;
    if (digit || letter) {
      run += 1;
      letters += letter ? 1 : 0;
      continue;
    }
    const word = (code >= 65 && code <= 90) || (code >= 103 && code <= 122) || code === 95;
    if (run === 32 && letters > 0 && !word) {
      starts.push(index - 32);
    }
    run = 0;
    letters = 0;
    // NOTE: a hex run that a word character touches is part of that word: skip to its end.
    if (word) {
      while (index + 1 < text.length && isWordCode(text.charCodeAt(index + 1))) {
        index += 1;
      }
    }
  }
  return starts;
}

function isWordCode(code: number): boolean {
  return (
    (code >= 48 && code <= 57) ||
    (code >= 65 && code <= 90) ||
    (code >= 97 && code <= 122) ||
    code === 95
  );
}

function redactText(text: string): string {
  const cards = replaceFolded(text, PAN_CANDIDATE, (match) => {
    const digits = match.replace(/[ -]/g, '');
    if (!passesLuhn(digits)) {
      return match;
    }
    return `${digits.slice(0, 6)}${'*'.repeat(digits.length - 10)}${digits.slice(-4)}`;
  });
  return replaceFolded(
    cards,
    CVV_FIELD,
    (_match, key: string, _value: string, close: string) => `${key}***${close}`,
  );
}
