import type { ProblemName } from '../../contract/problems';
import { headerValue } from '../common/http-headers';
import type { ApiKeyRecord } from '../data/api-keys';
import { getApiKey } from '../data/api-keys';
import { revealTimes } from '../data/reveals';
import { apiKeyState, digestApiKey, digestsMatch, parseApiKey, withRetirement } from '../domain/api-key';

export type Authentication =
  | { readonly kind: 'missing' }
  | {
      readonly kind: 'refused';
      readonly problem: ProblemName;
      readonly detail: string;
      readonly keyPrefix?: string;
    }
  | { readonly kind: 'authenticated'; readonly key: ApiKeyRecord };

type Headers = Record<string, string | undefined> | null | undefined;

/**
 * The presented key: `Authorization: Bearer <key>` (preferred) or `X-Enterprise-Key: <key>`. An
 * Authorization header in another form is a credential we cannot use: it is refused with a
 * message, never ignored or guessed at. An empty Bearer credential counts as no key.
 */
export function presentedKey(headers: Headers): { key: string } | { wrongScheme: true } | undefined {
  const authorization = headerValue(headers, 'authorization')?.trim();
  // `Bearer ` with nothing after it is what an unset variable sends: no key, not a malformed one.
  if (authorization && !/^Bearer$/i.test(authorization)) {
    const bearer = /^Bearer\s+(\S+)$/i.exec(authorization)?.[1];
    return bearer ? { key: bearer } : { wrongScheme: true };
  }
  const enterpriseKey = headerValue(headers, 'x-enterprise-key')?.trim();
  return enterpriseKey ? { key: enterpriseKey } : undefined;
}

/**
 * Key records by prefix, as in force (a rotation's retirement applied). Entries live 25 s, inside
 * the 30 s within which a revocation must take effect. Unknown prefixes are cached too, so made-up
 * keys cost one read per 25 s, but apart: a flood of well-formed random keys evicts only other
 * unknown prefixes, never a partner's key.
 */
const KEY_CACHE_TTL_MS = 25_000;
const KNOWN_KEYS_LIMIT = 5_000;
const UNKNOWN_PREFIXES_LIMIT = 5_000;
type CachedKey = { readonly record: ApiKeyRecord | undefined; readonly fetchedAtMs: number };
const knownKeys = new Map<string, CachedKey>();
const unknownPrefixes = new Map<string, CachedKey>();

/** Adds an entry as the newest, dropping the oldest beyond the limit (Map keeps insertion order). */
function remember(cache: Map<string, CachedKey>, limit: number, prefix: string, entry: CachedKey): void {
  cache.delete(prefix);
  cache.set(prefix, entry);
  if (cache.size > limit) {
    const oldest = cache.keys().next().value;
    if (oldest !== undefined) cache.delete(oldest);
  }
}

async function keyRecord(prefix: string, nowMs: number): Promise<ApiKeyRecord | undefined> {
  const cached = knownKeys.get(prefix) ?? unknownPrefixes.get(prefix);
  if (cached && nowMs - cached.fetchedAtMs < KEY_CACHE_TTL_MS) return cached.record;
  const stored = await getApiKey(prefix);
  // A key being replaced: one more read per replacement, to see whether the new key was revealed.
  const record =
    stored?.replacements && stored.revokedAt === undefined
      ? withRetirement(
          stored,
          await revealTimes(stored.replacements.map((replacement) => replacement.revealId)),
        )
      : stored;
  const entry = { record, fetchedAtMs: nowMs };
  if (record) {
    unknownPrefixes.delete(prefix);
    remember(knownKeys, KNOWN_KEYS_LIMIT, prefix, entry);
  } else {
    knownKeys.delete(prefix);
    remember(unknownPrefixes, UNKNOWN_PREFIXES_LIMIT, prefix, entry);
  }
  return record;
}

/** Forgets cached keys (tests). */
export function forgetCachedKeys(): void {
  knownKeys.clear();
  unknownPrefixes.clear();
}

/**
 * Checks a request's key: format and checksum first (no read for garbage), then the record
 * by prefix, a constant-time digest comparison, revocation and expiry.
 */
export async function authenticate(headers: Headers, nowMs: number): Promise<Authentication> {
  const presented = presentedKey(headers);
  if (presented === undefined) return { kind: 'missing' };
  if ('wrongScheme' in presented) {
    return {
      kind: 'refused',
      problem: 'malformed-api-key',
      detail: 'Send the key with the Bearer scheme: Authorization: Bearer <key>.',
    };
  }
  const parsed = parseApiKey(presented.key);
  if (!parsed.ok) {
    return {
      kind: 'refused',
      problem: 'malformed-api-key',
      detail:
        parsed.reason === 'checksum'
          ? 'The API key checksum does not match: check that the key was copied whole.'
          : 'This is not a partner API key: keys start with svc_ and are 50 characters long.',
    };
  }
  const record = await keyRecord(parsed.prefix, nowMs);
  if (!record || !digestsMatch(digestApiKey(parsed.key), record.digest)) {
    return {
      kind: 'refused',
      problem: 'unknown-api-key',
      detail:
        'This API key is not recognised here. Check that it is the key of this environment (sandbox keys do not work in production, nor the other way round).',
      keyPrefix: parsed.prefix,
    };
  }
  switch (apiKeyState(record, nowMs)) {
    case 'revoked':
      return {
        kind: 'refused',
        problem: 'revoked-api-key',
        detail: 'This API key was revoked. Use your current key or ask us for a new one.',
        keyPrefix: record.prefix,
      };
    case 'expired':
      return {
        kind: 'refused',
        problem: 'expired-api-key',
        detail: 'This API key expired after a rotation. Use the key that replaced it.',
        keyPrefix: record.prefix,
      };
    default:
      return { kind: 'authenticated', key: record };
  }
}
