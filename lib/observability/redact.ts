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
 * first six and last four digits, and CVV/CVC-like fields lose their value.
 *
 * Only Luhn-valid runs are masked: every issued card number passes the check, while the long
 * numbers that fill payment logs (millisecond timestamps, provider payment and order ids) mostly
 * do not, and stay readable.
 * @example
 * redact('pan=4111 1111 1111 1111 cvv=123') // 'pan=411111******1111 cvv=***'
 */
export function redact(text: string): string {
  return text
    .replace(PAN_CANDIDATE, (match) => {
      const digits = match.replace(/[ -]/g, '');
      if (!passesLuhn(digits)) {
        return match;
      }
      return `${digits.slice(0, 6)}${'*'.repeat(digits.length - 10)}${digits.slice(-4)}`;
    })
    .replace(
      CVV_FIELD,
      (_match, key: string, _value: string, close: string) => `${key}***${close}`,
    );
}
