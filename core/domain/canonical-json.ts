/**
 * A value as one text whatever order its objects' fields came in (keys sorted at every level):
 * what tells two values apart by content, a stored map from DynamoDB (whose fields come back in
 * any order) and the same value built again included.
 */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object')
    return `{${Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`)
      .join(',')}}`;
  return JSON.stringify(value) ?? 'undefined';
}
