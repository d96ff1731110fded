/**
 * Size of a DynamoDB item as DynamoDB bills it ("Item sizes and formats" in the DynamoDB
 * developer guide): attribute names plus values; strings and binaries by length in bytes,
 * numbers about 1 byte per two significant digits plus 1, booleans and nulls 1 byte, lists
 * and maps 3 bytes plus 1 byte per element on top of their contents.
 */
export function itemSizeBytes(item: Record<string, unknown>): number {
  let size = 0;
  for (const [name, value] of Object.entries(item)) size += Buffer.byteLength(name) + valueSize(value);
  return size;
}

function numberSize(value: number | bigint): number {
  const digits = String(value).replace(/^-/, '').replace('.', '').replace(/^0+/, '').replace(/0+$/, '');
  return Math.ceil(Math.max(1, digits.length) / 2) + 1;
}

function valueSize(value: unknown): number {
  if (value === null || value === undefined || typeof value === 'boolean') return 1;
  if (typeof value === 'string') return Buffer.byteLength(value);
  if (typeof value === 'number' || typeof value === 'bigint') return numberSize(value);
  if (value instanceof Uint8Array) return value.byteLength;
  if (value instanceof Set) {
    let size = 0;
    for (const element of value) size += valueSize(element);
    return size;
  }
  if (Array.isArray(value))
    return 3 + value.reduce((sum: number, element: unknown) => sum + 1 + valueSize(element), 0);
  if (typeof value === 'object') {
    let size = 3;
    for (const [name, element] of Object.entries(value))
      size += 1 + Buffer.byteLength(name) + valueSize(element);
    return size;
  }
  return 0;
}
