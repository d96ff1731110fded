import { createHash, timingSafeEqual } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { BASE62_PATTERN, encodeBase62, randomBase62 } from './base62';

/**
 * Partner API keys: `svc_` + 8 base62 id characters (together the 12-character key prefix,
 * kept in plaintext to name the key in logs) + 32 random base62 characters + a 6-character
 * base62 CRC32 checksum of everything before it, so a mistyped key is refused before any read.
 */
export const API_KEY_LITERAL = 'svc_';
export const KEY_PREFIX_LENGTH = 12;
const SECRET_LENGTH = 32;
const CHECKSUM_LENGTH = 6; // 62^6 > 2^32
export const API_KEY_LENGTH = KEY_PREFIX_LENGTH + SECRET_LENGTH + CHECKSUM_LENGTH;

export interface ApiKeyMaterial {
  /** The whole key: shown once to the partner, never stored. */
  readonly key: string;
  /** First 12 characters: stored in plaintext, used in logs and by operators. */
  readonly prefix: string;
  /** SHA-256 of the whole key: the only stored form of the secret. */
  readonly digest: Buffer;
}

export type ApiKeyParseResult =
  | { readonly ok: true; readonly key: string; readonly prefix: string }
  | { readonly ok: false; readonly reason: 'malformed' | 'checksum' };

function checksumOf(body: string): string {
  return encodeBase62(crc32(body), CHECKSUM_LENGTH);
}

/** Mints a new key with a fresh random prefix. */
export function generateApiKey(): ApiKeyMaterial {
  const body = API_KEY_LITERAL + randomBase62(KEY_PREFIX_LENGTH - API_KEY_LITERAL.length + SECRET_LENGTH);
  const key = body + checksumOf(body);
  return { key, prefix: key.slice(0, KEY_PREFIX_LENGTH), digest: digestApiKey(key) };
}

/** Checks shape and checksum only: no I/O, so garbage never reaches the database. */
export function parseApiKey(candidate: string): ApiKeyParseResult {
  if (candidate.length !== API_KEY_LENGTH || !candidate.startsWith(API_KEY_LITERAL)) {
    return { ok: false, reason: 'malformed' };
  }
  if (!BASE62_PATTERN.test(candidate.slice(API_KEY_LITERAL.length)))
    return { ok: false, reason: 'malformed' };
  const body = candidate.slice(0, -CHECKSUM_LENGTH);
  if (checksumOf(body) !== candidate.slice(-CHECKSUM_LENGTH)) return { ok: false, reason: 'checksum' };
  return { ok: true, key: candidate, prefix: candidate.slice(0, KEY_PREFIX_LENGTH) };
}

/** SHA-256 digest of the whole key. */
export function digestApiKey(key: string): Buffer {
  return createHash('sha256').update(key, 'utf8').digest();
}

/** Constant-time digest comparison. */
export function digestsMatch(presented: Uint8Array, stored: Uint8Array): boolean {
  return presented.length === stored.length && timingSafeEqual(presented, stored);
}

/** A key prefix as operators type it (`svc_` + 8 base62 characters). */
export function isKeyPrefix(candidate: string): boolean {
  return (
    candidate.length === KEY_PREFIX_LENGTH &&
    candidate.startsWith(API_KEY_LITERAL) &&
    BASE62_PATTERN.test(candidate.slice(API_KEY_LITERAL.length))
  );
}

export type ApiKeyState = 'active' | 'expired' | 'revoked';

/** Revocation wins over expiry; a key past `expiresAt` stops working at that instant. */
export function apiKeyState(key: { revokedAt?: string; expiresAt?: string }, nowMs: number): ApiKeyState {
  if (key.revokedAt !== undefined) return 'revoked';
  if (key.expiresAt !== undefined && Date.parse(key.expiresAt) <= nowMs) return 'expired';
  return 'active';
}

/** A rotation's replacement of a key, as the key records it. */
export interface Replacement {
  readonly revealId: string;
  readonly graceMs: number;
}

/**
 * The key as in force: a rotation retires it the grace period after the first of its
 * replacements was revealed, so the partner always holds a working key; an expiry of its own
 * that comes earlier stands. `revealedAt` gives the reveal time of the replacements' reveals.
 */
export function withRetirement<K extends { expiresAt?: string; replacements?: readonly Replacement[] }>(
  key: K,
  revealedAt: ReadonlyMap<string, string>,
): K {
  const retirements = (key.replacements ?? []).flatMap((replacement) => {
    const revealed = revealedAt.get(replacement.revealId);
    return revealed === undefined ? [] : [Date.parse(revealed) + replacement.graceMs];
  });
  if (key.expiresAt !== undefined) retirements.push(Date.parse(key.expiresAt));
  return retirements.length === 0
    ? key
    : { ...key, expiresAt: new Date(Math.min(...retirements)).toISOString() };
}
