/**
 * Text on one line: names, channels and messages are stored and echoed without the characters
 * that could break a log line, a header, a terminal or a page's layout:
 * - C0 controls and DEL (U+0000–U+001F, U+007F), including tab, CR and LF;
 * - C1 controls (U+0080–U+009F), which terminals read as escape sequences;
 * - the line and paragraph separators U+2028 and U+2029;
 * - bidirectional embeddings, overrides and isolates (U+202A–U+202E, U+2066–U+2069), which
 *   reorder the text around them ("Trojan source").
 * The implicit direction marks (U+200E, U+200F, U+061C) stay allowed: right-to-left names need
 * them, and they change nothing beyond their own position.
 * Text must also be well-formed UTF-16: a lone surrogate (a JSON `\ud800` escape with no pair) is
 * no character, cannot be written as UTF-8, and strict JSON readers refuse the answers holding it.
 */
const UNSAFE_RANGES = '\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069';

const CONTROL_CHARACTER = new RegExp(`[${UNSAFE_RANGES}]`);
const CONTROL_CHARACTERS = new RegExp(`[${UNSAFE_RANGES}]`, 'g');

/** The same characters but tab and line feed: what a text of several lines refuses. */
const UNSAFE_IN_TEXT =
  '\\u0000-\\u0008\\u000b-\\u001f\\u007f-\\u009f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069';
const CONTROL_CHARACTER_IN_TEXT = new RegExp(`[${UNSAFE_IN_TEXT}]`);

/** The same rule as a JSON Schema `pattern` (the OpenAPI document's text fields). */
export const ONE_LINE_PATTERN = `^[^${UNSAFE_RANGES}]*$`;

/**
 * Exactly what `isOneLine` accepts, as a JSON Schema `pattern` (the AsyncAPI document's one-line
 * texts, so that an event its schema accepts is never refused for one): the characters above
 * refused, and a surrogate only as half of a pair. ECMAScript reads it the same with or without the
 * `u` flag: a pair is one character there, and two halves of the second branch here.
 */
export const WELL_FORMED_ONE_LINE_PATTERN = `^(?:[^${UNSAFE_RANGES}\\ud800-\\udfff]|[\\ud800-\\udbff][\\udc00-\\udfff])*$`;

/** A high surrogate not followed by a low one, or a low one not preceded by a high one. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** True when the text has none of the characters above and is well-formed. */
export function isOneLine(text: string): boolean {
  return !CONTROL_CHARACTER.test(text) && !LONE_SURROGATE.test(text);
}

/**
 * Text of several lines (a check-in instruction, an answer, a description): the one-line rule
 * but line feeds and tabs are kept. Carriage returns count as refused: read form text through
 * `withUnixLineBreaks` first, as browsers send a textarea's line breaks as CR LF.
 */
export function isMultiLineText(text: string): boolean {
  return !CONTROL_CHARACTER_IN_TEXT.test(text) && !LONE_SURROGATE.test(text);
}

/** Line breaks as line feeds (a form's CR LF, a lone CR). */
export function withUnixLineBreaks(text: string): string {
  return text.replace(/\r\n?/g, '\n');
}

/** The text with each character above replaced. */
export function withoutControlCharacters(text: string, replacement: string): string {
  return text.replace(CONTROL_CHARACTERS, replacement);
}

/** The text with each character above written as a JSON/JavaScript `\uXXXX` escape (same value, nothing raw). */
export function withUnsafeEscaped(text: string): string {
  return text.replace(
    CONTROL_CHARACTERS,
    (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/** A client's value as quoted back: truncated, control characters replaced. */
export function quoted(value: string, maxLength: number): string {
  const cut = value.length > maxLength ? `${value.slice(0, maxLength)}…` : value;
  return withoutControlCharacters(cut, '?');
}
