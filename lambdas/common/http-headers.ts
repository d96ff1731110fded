type Headers = Record<string, string | undefined> | null | undefined;

/** A request header by name, whatever its letter case: API Gateway passes names as sent. */
export function headerValue(headers: Headers, name: string): string | undefined {
  const wanted = name.toLowerCase();
  for (const [key, value] of Object.entries(headers ?? {})) {
    if (key.toLowerCase() === wanted && value !== undefined) return value;
  }
  return undefined;
}
