const PAN_CANDIDATE = /\b\d(?:[ -]?\d){12,18}\b/g;
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
 * Masks what must never reach a log: card numbers (13 to 19 digits, spaces or dashes allowed,
 * passing the Luhn check) keep their first six and last four digits, and CVV/CVC-like fields
 * lose their value.
 * @example
 * redact('pan=4111 1111 1111 1111 cvv=123') // 'pan=411111******1111 cvv=***'
 */
export function redact(text: string): string {
  return text
    .replace(PAN_CANDIDATE, (match) => {
      const digits = match.replace(/[ -]/g, '');
      if (digits.length < 13 || digits.length > 19 || !passesLuhn(digits)) {
        return match;
      }
      return `${digits.slice(0, 6)}${'*'.repeat(digits.length - 10)}${digits.slice(-4)}`;
    })
    .replace(
      CVV_FIELD,
      (_match, key: string, _value: string, close: string) => `${key}***${close}`,
    );
}
