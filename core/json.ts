/** The value of a JSON text, or undefined when the text is not JSON (an HTML error page, an empty body). */
export function jsonOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
