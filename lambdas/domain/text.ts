/**
 * Control characters (C0 and DEL): names, channels and messages are text on one line without
 * them, so nothing we store or echo can break a log line, a header or a page.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is this pattern's purpose.
export const CONTROL_CHARACTER = /[\u0000-\u001f\u007f]/;
// biome-ignore lint/suspicious/noControlCharactersInRegex: as above, for replacing them.
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f]/g;

/** The same rule as a JSON Schema `pattern` (the OpenAPI document's text fields). */
export const ONE_LINE_PATTERN = `^[^${'\\u0000'}-${'\\u001f'}${'\\u007f'}]*$`;

export function isOneLine(text: string): boolean {
  return !CONTROL_CHARACTER.test(text);
}

/** The text with each control character replaced. */
export function withoutControlCharacters(text: string, replacement: string): string {
  return text.replace(CONTROL_CHARACTERS, replacement);
}

/** A client's value as quoted back: truncated, control characters replaced. */
export function quoted(value: string, maxLength: number): string {
  const cut = value.length > maxLength ? `${value.slice(0, maxLength)}…` : value;
  return withoutControlCharacters(cut, '?');
}
