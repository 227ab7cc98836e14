/**
 * Format characters that take no room when shown: the soft hyphen, the combining grapheme
 * joiner, the Arabic letter mark, the Hangul fillers, the Khmer inherent vowels, the Mongolian
 * variation selectors and vowel separator, the zero-width space, non-joiner and joiner, the word
 * joiner and invisible operators, the deprecated format controls, the byte order mark and the
 * interlinear annotation marks. A value can hide them inside a card number or an id.
 */
export const INVISIBLE_FORMAT_CHARACTERS =
  '\\u00ad\\u034f\\u061c\\u115f\\u1160\\u17b4\\u17b5\\u180b-\\u180f\\u200b-\\u200d\\u2060-\\u2065' +
  '\\u206a-\\u206f\\u3164\\ufeff\\uffa0\\ufff9-\\ufffb';
