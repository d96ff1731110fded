import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * `base64url(JSON) + "." + base64url(HMAC-SHA256(key, first part))`: the format of activation
 * tokens (docs/design/activation-links.md).
 */
const BASE64URL = /^[A-Za-z0-9_-]+$/;
const SIGNATURE_BYTES = 32;

export type SignedJsonResult =
  | { readonly ok: true; readonly payload: unknown }
  | { readonly ok: false; readonly reason: 'malformed' | 'bad-signature' };

function signature(encodedPayload: string, key: Uint8Array): Buffer {
  return createHmac('sha256', key).update(encodedPayload, 'utf8').digest();
}

export function signJson(value: unknown, key: Uint8Array): string {
  const encodedPayload = Buffer.from(JSON.stringify(value), 'utf8').toString('base64url');
  return `${encodedPayload}.${signature(encodedPayload, key).toString('base64url')}`;
}

/** Strict base64url: only the alphabet, no padding, and the canonical encoding of its bytes. */
function decodeCanonical(text: string): Buffer | undefined {
  if (!BASE64URL.test(text)) return undefined;
  const bytes = Buffer.from(text, 'base64url');
  return bytes.toString('base64url') === text ? bytes : undefined;
}

/**
 * Checks shape and size before anything else, then the signature in constant time, and only
 * then parses the JSON. Never throws.
 */
export function verifySignedJson(token: string, key: Uint8Array, maxLength: number): SignedJsonResult {
  if (typeof token !== 'string' || token.length === 0 || token.length > maxLength)
    return { ok: false, reason: 'malformed' };
  const parts = token.split('.');
  if (parts.length !== 2) return { ok: false, reason: 'malformed' };
  const [encodedPayload = '', encodedSignature = ''] = parts;
  const payloadBytes = decodeCanonical(encodedPayload);
  const presented = decodeCanonical(encodedSignature);
  if (!payloadBytes || !presented || presented.length !== SIGNATURE_BYTES)
    return { ok: false, reason: 'malformed' };
  if (!timingSafeEqual(presented, signature(encodedPayload, key)))
    return { ok: false, reason: 'bad-signature' };
  try {
    return { ok: true, payload: JSON.parse(payloadBytes.toString('utf8')) as unknown };
  } catch {
    return { ok: false, reason: 'malformed' };
  }
}

/** The payload of a token without checking it: only to find which record a token claims to be. */
export function unverifiedPayload(token: string, maxLength: number): unknown {
  if (typeof token !== 'string' || token.length > maxLength) return undefined;
  const bytes = decodeCanonical(token.split('.')[0] ?? '');
  if (!bytes) return undefined;
  try {
    return JSON.parse(bytes.toString('utf8')) as unknown;
  } catch {
    return undefined;
  }
}
