// @ts-check
// Building the page: every text from the inbox goes in as text (textContent, text nodes), never
// as HTML, so a payload crafted to look like markup shows as what it is.

/**
 * An element of the page the markup is known to hold.
 * @param {string} id
 * @returns {HTMLElement}
 */
export function byId(id) {
  const node = document.getElementById(id);
  if (!node) throw new Error(`The inbox page has no #${id}`);
  return node;
}

/**
 * An element with a class and children; strings become text nodes.
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {string} className
 * @param {...(Node | string | null | undefined)} children
 * @returns {HTMLElementTagNameMap[K]}
 */
export function el(tag, className, ...children) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  node.append(...children.filter((child) => child !== null && child !== undefined));
  return node;
}

/**
 * @param {string} label
 * @param {() => void} onClick
 * @param {string} [className]
 */
export function button(label, onClick, className = '') {
  const node = el('button', className, label);
  node.type = 'button';
  node.addEventListener('click', onClick);
  return node;
}

/**
 * A table row; a string is a cell of its own.
 * @param {(Node | string)[]} cells
 */
export function row(cells) {
  return el('tr', '', ...cells.map((cell) => (cell instanceof Node ? cell : el('td', '', cell))));
}

/**
 * A local time, to the second.
 * @param {string | null | undefined} iso
 */
export function time(iso) {
  if (!iso) return '';
  const date = new Date(iso);
  /** @param {number} n */
  const pad = (n) => String(n).padStart(2, '0');
  return (
    `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ` +
    `${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`
  );
}

/** @param {string} iso */
function ago(iso) {
  const seconds = Math.max(0, Math.round((Date.now() - new Date(iso).getTime()) / 1000));
  if (seconds < 90) return `${seconds} s ago`;
  if (seconds < 5400) return `${Math.round(seconds / 60)} min ago`;
  if (seconds < 172800) return `${Math.round(seconds / 3600)} h ago`;
  return `${Math.round(seconds / 86400)} d ago`;
}

/**
 * A cell saying how long ago, with the time itself on hover.
 * @param {string | null | undefined} iso
 */
export function timeCell(iso) {
  const cell = el('td', '', iso ? ago(iso) : '');
  cell.title = time(iso);
  return cell;
}

/** @param {string | null | undefined} text */
export function firstLine(text) {
  return text ? String(text).split('\n')[0] : '';
}

/**
 * @param {number} count
 * @param {string} word
 */
export function plural(count, word) {
  return `${count} ${word}${count === 1 ? '' : 's'}`;
}
