import { createHmac, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import type { ActivationClaims } from '../../core/domain/activation-token';
import { isProductId } from '../../core/domain/catalog';
import { headerValue } from '../common/http-headers';
import { seal, unseal } from '../common/secret-box';

/**
 * The host's session after a verified activation link: a cookie holding the verified claims (so
 * opening a link writes nothing), and after provisioning, what was provisioned. The cookie is
 * encrypted and authenticated (AES-256-GCM under a key derived from the session key): it carries
 * the host's e-mail address, which nobody reading the cookie (a proxy log, a shared computer's
 * profile) should learn.
 * One cookie per partner, named after its slug, with `Path=/`: a partner's pages find it however
 * their address spells the slug (`demo%2Dpms` routes as `demo-pms`, and a cookie scoped to the
 * folder the browser saw would be another cookie, beside the live one), whatever prefix API
 * Gateway's stage or a custom domain adds.
 */
const sessionCookieName = (slug: string) => `activation_session_${slug}`;
const MAX_COOKIE_LENGTH = 3_000;
/** Before provisioning: the time to pick products; never past the link's own expiry. */
export const CHOOSING_TTL_SECONDS = 30 * 60;
/** After provisioning: time to finish the onboarding wizard. */
const ONBOARDING_TTL_SECONDS = 12 * 3_600;

export interface HostSession {
  readonly sid: string;
  readonly partnerId: number;
  readonly slug: string;
  readonly claims: ActivationClaims;
  /** Unix seconds. */
  readonly exp: number;
  readonly provisioned?: { readonly hostUserId: number; readonly propertyId: number };
}

export function newSession(
  partnerId: number,
  slug: string,
  claims: ActivationClaims,
  nowMs: number,
): HostSession {
  return {
    sid: randomBytes(16).toString('base64url'),
    partnerId,
    slug,
    claims,
    exp: Math.min(claims.exp, Math.floor(nowMs / 1000) + CHOOSING_TTL_SECONDS),
  };
}

export function provisionedSession(
  session: HostSession,
  provisioned: { hostUserId: number; propertyId: number },
  nowMs: number,
): HostSession {
  return { ...session, provisioned, exp: Math.floor(nowMs / 1000) + ONBOARDING_TTL_SECONDS };
}

/** The cookie's encryption key: its own, derived from the session key (which also signs CSRF tokens). */
function cookieKey(key: Uint8Array): Buffer {
  return Buffer.from(hkdfSync('sha256', key, Buffer.alloc(0), 'host-session-cookie/v1', 32));
}

/** The Set-Cookie value (Secure everywhere except the local http server). */
export function sessionCookie(session: HostSession, key: Uint8Array, secure: boolean, nowMs: number): string {
  const maxAge = Math.max(0, session.exp - Math.floor(nowMs / 1000));
  const value = seal(Buffer.from(JSON.stringify(session), 'utf8'), cookieKey(key));
  return `${sessionCookieName(session.slug)}=${value}; Max-Age=${maxAge}; Path=/; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`;
}

/** The session a cookie value holds, if it opens under the key (authentic and unaltered). */
function openCookie(cookie: string, key: Uint8Array): unknown {
  if (cookie.length > MAX_COOKIE_LENGTH) return undefined;
  try {
    return JSON.parse(unseal(cookie, cookieKey(key)).toString('utf8'));
  } catch {
    return undefined;
  }
}

function cookieValue(event: APIGatewayProxyEvent, name: string): string | undefined {
  for (const part of (headerValue(event.headers, 'cookie') ?? '').split(';')) {
    const [cookieName, ...rest] = part.trim().split('=');
    if (cookieName === name) return rest.join('=');
  }
  return undefined;
}

/** The session for this partner's pages, if the cookie is present, authentic and unexpired. */
export function readSession(
  event: APIGatewayProxyEvent,
  key: Uint8Array,
  slug: string,
  nowMs: number,
): HostSession | undefined {
  const cookie = cookieValue(event, sessionCookieName(slug));
  if (!cookie) return undefined;
  const session = openCookie(cookie, key);
  if (!isHostSession(session) || session.slug !== slug || session.exp * 1000 <= nowMs) return undefined;
  return session;
}

const isInteger = (value: unknown): value is number => Number.isSafeInteger(value);
const isText = (value: unknown): value is string => typeof value === 'string';

/**
 * The shape of a session payload. Its authentication proved we wrote it, so this only guards against
 * a payload of another version of this code, not against forgery: no schema library needed.
 */
function isHostSession(value: unknown): value is HostSession {
  if (typeof value !== 'object' || value === null) return false;
  const session = value as Record<string, unknown>;
  const claims = session.claims as Record<string, unknown> | null | undefined;
  const provisioned = session.provisioned as Record<string, unknown> | undefined;
  return (
    isText(session.sid) &&
    isInteger(session.partnerId) &&
    isText(session.slug) &&
    isInteger(session.exp) &&
    typeof claims === 'object' &&
    claims !== null &&
    isText(claims.contact_email) &&
    isText(claims.contact_name) &&
    isText(claims.pms_hotel_id) &&
    isInteger(claims.exp) &&
    isText(claims.nonce) &&
    Array.isArray(claims.requested_product_ids) &&
    claims.requested_product_ids.every((product) => isText(product) && isProductId(product)) &&
    (provisioned === undefined || (isInteger(provisioned.hostUserId) && isInteger(provisioned.propertyId)))
  );
}

/** The CSRF token of every form in this session: bound to the session id and the key. */
export function csrfToken(session: HostSession, key: Uint8Array): string {
  return createHmac('sha256', key).update(`csrf:${session.sid}`).digest('base64url');
}

export function isValidCsrfToken(session: HostSession, key: Uint8Array, presented: string | null): boolean {
  const expected = Buffer.from(csrfToken(session, key));
  const given = Buffer.from(presented ?? '');
  return given.length === expected.length && timingSafeEqual(given, expected);
}
