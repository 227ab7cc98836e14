'use strict';

/**
 * The value of a command-line option that takes a positive whole number.
 * @param {string} option the option's name, for the error
 * @param {string | undefined} value what followed it
 * @throws Error naming the option when the value is not a positive whole number
 */
function positiveWhole(option, value) {
  const number = Number(value);
  if (!Number.isInteger(number) || number <= 0) {
    throw new Error(`${option} needs a positive whole number, got "${value}"`);
  }
  return number;
}

module.exports = { positiveWhole };
