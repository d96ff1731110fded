import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Page cursors of `GET /properties`: where the next page starts (after the last id of the page
 * before), bound to the partner and signed with the service's cursor key. The client gets it in a
 * `Link` header and sends it back unchanged. Tamper-evident: an altered cursor, or one issued to
 * another partner, fails the signature and is refused; the list is read from the requesting
 * partner's own partition whatever a cursor says, so a cursor can never reach another partner's data.
 *
 * Layout (base64url, 34 characters): version (1 byte) · the last id of the page (8 bytes, big
 * endian) · HMAC-SHA256(key, version · partner id · last id), first 16 bytes.
 */
const VERSION = 1;
const ID_BYTES = 8;
const MAC_BYTES = 16;
const CURSOR_BYTES = 1 + ID_BYTES + MAC_BYTES;

/** The position a cursor encodes: the list continues with ids greater than `afterId`. */
export interface PagePosition {
  readonly afterId: number;
}

function mac(key: Uint8Array, partnerId: number, afterId: number): Buffer {
  const message = Buffer.alloc(1 + 8 + ID_BYTES);
  message.writeUInt8(VERSION, 0);
  message.writeBigUInt64BE(BigInt(partnerId), 1);
  message.writeBigUInt64BE(BigInt(afterId), 9);
  return createHmac('sha256', key).update(message).digest().subarray(0, MAC_BYTES);
}

/** The cursor of the page after the one ending with `afterId`, for this partner. */
export function encodePageCursor(key: Uint8Array, partnerId: number, afterId: number): string {
  if (!Number.isSafeInteger(afterId) || afterId < 0) throw new RangeError(`Not an id: ${afterId}`);
  const cursor = Buffer.alloc(CURSOR_BYTES);
  cursor.writeUInt8(VERSION, 0);
  cursor.writeBigUInt64BE(BigInt(afterId), 1);
  mac(key, partnerId, afterId).copy(cursor, 1 + ID_BYTES);
  return cursor.toString('base64url');
}

/**
 * The position of a cursor this partner was given, or undefined when it is not one: malformed,
 * altered, signed with another key, or issued to another partner (not distinguished).
 */
export function decodePageCursor(
  key: Uint8Array,
  partnerId: number,
  cursor: string,
): PagePosition | undefined {
  if (!/^[A-Za-z0-9_-]+$/.test(cursor)) return undefined;
  const bytes = Buffer.from(cursor, 'base64url');
  // Strict: one spelling per cursor (no padding, no trailing bits a decoder would drop).
  if (bytes.length !== CURSOR_BYTES || bytes.toString('base64url') !== cursor) return undefined;
  if (bytes.readUInt8(0) !== VERSION) return undefined;
  const afterId = bytes.readBigUInt64BE(1);
  if (afterId > BigInt(Number.MAX_SAFE_INTEGER)) return undefined;
  const expected = mac(key, partnerId, Number(afterId));
  if (!timingSafeEqual(expected, bytes.subarray(1 + ID_BYTES))) return undefined;
  return { afterId: Number(afterId) };
}

/** The 400 detail for a cursor that is not this partner's (the handler and the document's example). */
export function refusedCursorDetail(parameter: string): string {
  return `${parameter} is not one this API gave your account: use the Link header of the previous page unchanged, or start again without ${parameter}.`;
}
