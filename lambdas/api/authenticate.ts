import type { ProblemName } from '../../core/contract/problems';
import { PROBLEM_DETAILS } from '../../core/contract/problems';
import { digestApiKey, digestsMatch, keyStanding, parseApiKey } from '../../core/domain/api-key';
import { headerValue } from '../common/http-headers';
import type { ApiKeyRecord } from '../data/api-keys';
import { getApiKey } from '../data/api-keys';
import type { PartnerStanding } from '../data/partners';
import { getPartnerStanding } from '../data/partners';

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
 * Key records by prefix, and partners' standing by id, as read from the table. Entries live
 * 25 s, inside the 30 s within which a revocation or a suspension must take effect. Unknown
 * prefixes are cached too, so made-up keys cost one read per 25 s, but apart: a flood of
 * well-formed random keys evicts only other unknown prefixes, never a partner's key. Neither
 * item has a TTL: nothing that expires decides who gets in.
 */
const CACHE_TTL_MS = 25_000;
const KNOWN_KEYS_LIMIT = 5_000;
const UNKNOWN_PREFIXES_LIMIT = 5_000;
const PARTNERS_LIMIT = 5_000;
type Cached<T> = { readonly value: T; readonly fetchedAtMs: number };
const knownKeys = new Map<string, Cached<ApiKeyRecord | undefined>>();
const unknownPrefixes = new Map<string, Cached<ApiKeyRecord | undefined>>();
const partners = new Map<number, Cached<PartnerStanding | undefined>>();

/** Adds an entry as the newest, dropping the oldest beyond the limit (Map keeps insertion order). */
function remember<K, T>(cache: Map<K, Cached<T>>, limit: number, key: K, entry: Cached<T>): void {
  cache.delete(key);
  cache.set(key, entry);
  if (cache.size > limit) {
    const oldest = cache.keys().next().value;
    if (oldest !== undefined) cache.delete(oldest);
  }
}

const fresh = <T>(entry: Cached<T> | undefined, nowMs: number): entry is Cached<T> =>
  entry !== undefined && nowMs - entry.fetchedAtMs < CACHE_TTL_MS;

async function keyRecord(prefix: string, nowMs: number): Promise<ApiKeyRecord | undefined> {
  const cached = knownKeys.get(prefix) ?? unknownPrefixes.get(prefix);
  if (fresh(cached, nowMs)) return cached.value;
  const record = await getApiKey(prefix);
  const entry = { value: record, fetchedAtMs: nowMs };
  if (record) {
    unknownPrefixes.delete(prefix);
    remember(knownKeys, KNOWN_KEYS_LIMIT, prefix, entry);
  } else {
    knownKeys.delete(prefix);
    remember(unknownPrefixes, UNKNOWN_PREFIXES_LIMIT, prefix, entry);
  }
  return record;
}

async function partnerStanding(partnerId: number, nowMs: number): Promise<PartnerStanding | undefined> {
  const cached = partners.get(partnerId);
  if (fresh(cached, nowMs)) return cached.value;
  const standing = await getPartnerStanding(partnerId);
  remember(partners, PARTNERS_LIMIT, partnerId, { value: standing, fetchedAtMs: nowMs });
  return standing;
}

/** Forgets cached keys and partners (tests). */
export function forgetCachedKeys(): void {
  knownKeys.clear();
  unknownPrefixes.clear();
  partners.clear();
}

const refused = (problem: ProblemName, detail: string, keyPrefix?: string): Authentication => ({
  kind: 'refused',
  problem,
  detail,
  ...(keyPrefix === undefined ? {} : { keyPrefix }),
});

/**
 * Checks a request's key: format and checksum first (no read for garbage), then the record by
 * prefix, a constant-time digest comparison, the key's stored state and expiry, and its
 * partner's standing. The key carries its scopes as far as the agreement still grants them.
 */
export async function authenticate(headers: Headers, nowMs: number): Promise<Authentication> {
  const presented = presentedKey(headers);
  if (presented === undefined) return { kind: 'missing' };
  if ('wrongScheme' in presented) return refused('malformed-api-key', PROBLEM_DETAILS['wrong-scheme']);
  const parsed = parseApiKey(presented.key);
  if (!parsed.ok) return refused('malformed-api-key', PROBLEM_DETAILS[parsed.reason]);
  const record = await keyRecord(parsed.prefix, nowMs);
  // A key nobody revealed cannot have been presented by its partner: it is refused as unknown.
  if (!record || !digestsMatch(digestApiKey(parsed.key), record.digest) || record.state === 'pending')
    return refused('unknown-api-key', PROBLEM_DETAILS.unknown, parsed.prefix);
  switch (keyStanding(record, nowMs)) {
    case 'revoked':
      return refused('revoked-api-key', PROBLEM_DETAILS.revoked, record.prefix);
    case 'superseded':
      return refused('revoked-api-key', PROBLEM_DETAILS.superseded, record.prefix);
    case 'expired':
      return refused('expired-api-key', PROBLEM_DETAILS.expired, record.prefix);
    default:
      break;
  }
  const partner = await partnerStanding(record.partnerId, nowMs);
  if (!partner) return refused('unknown-api-key', PROBLEM_DETAILS.unknown, record.prefix);
  if (partner.suspended) return refused('partner-suspended', PROBLEM_DETAILS.suspended, record.prefix);
  return {
    kind: 'authenticated',
    key: { ...record, scopes: record.scopes.filter((scope) => partner.scopes.includes(scope)) },
  };
}
