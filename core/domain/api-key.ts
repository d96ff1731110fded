import { createHash, timingSafeEqual } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { BASE62_PATTERN, encodeBase62, randomBase62 } from './base62';

/**
 * Partner API keys: `svc_` + 8 base62 id characters (together the 12-character key prefix,
 * kept in plaintext to name the key in logs) + 32 random base62 characters + a 6-character
 * base62 CRC32 checksum of everything before it, so a mistyped key is refused before any read.
 */
const API_KEY_LITERAL = 'svc_';
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

/**
 * The regular expression of a key, as secret scanners are given it (GitHub's partner program):
 * the fixed literal, then base62 to the key's length, as a whole word. Every key `generateApiKey`
 * makes matches it; the checksum then tells a key from look-alike text before any read.
 */
export const API_KEY_SCANNER_PATTERN = `\\b${API_KEY_LITERAL}[0-9A-Za-z]{${API_KEY_LENGTH - API_KEY_LITERAL.length}}\\b`;

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

/**
 * A key's lifecycle, stored on the key item and changed only in the transaction of the event that
 * decides it (docs/design/api-keys.md has the diagram):
 * - `pending`: issued, its one-time reveal not yet spent;
 * - `active`: revealed, in force with no end;
 * - `retiring`: in force until `expiresAt` (a replacement was revealed), then expired;
 * - `revoked`: stopped by an operator;
 * - `superseded`: replaced by a newer rotation before anyone revealed it.
 */
const STORED_KEY_STATES = ['pending', 'active', 'retiring', 'revoked', 'superseded'] as const;
export type StoredKeyState = (typeof STORED_KEY_STATES)[number];

/** What a key is at an instant: its stored state, with a retiring key past its end as `expired`. */
export type KeyStanding = StoredKeyState | 'expired';

export function isStoredKeyState(value: unknown): value is StoredKeyState {
  return (STORED_KEY_STATES as readonly unknown[]).includes(value);
}

/** Reads a key's standing from its own stored state and expiry: nothing else decides it. */
export function keyStanding(key: { state: StoredKeyState; expiresAt?: string }, nowMs: number): KeyStanding {
  if (key.state === 'retiring' && (key.expiresAt === undefined || Date.parse(key.expiresAt) <= nowMs))
    return 'expired';
  return key.state;
}

/** Whether a key opens the API at `nowMs`: revealed, and not yet past a retirement. */
export function isInForce(key: { state: StoredKeyState; expiresAt?: string }, nowMs: number): boolean {
  const standing = keyStanding(key, nowMs);
  return standing === 'active' || standing === 'retiring';
}

/**
 * When a key retires once a replacement is revealed at `nowMs` with `graceMs`: the grace period
 * from now, or its own earlier end (a retirement is never pushed back).
 */
export function retirementAt(key: { expiresAt?: string }, nowMs: number, graceMs: number): string {
  const candidate = nowMs + graceMs;
  const earlier = key.expiresAt === undefined ? candidate : Math.min(Date.parse(key.expiresAt), candidate);
  return new Date(earlier).toISOString();
}
