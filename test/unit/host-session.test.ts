import { randomBytes } from 'node:crypto';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { mintActivationToken } from '../../core/domain/activation-token';
import {
  CHOOSING_TTL_SECONDS,
  csrfToken,
  isValidCsrfToken,
  newSession,
  provisionedSession,
  readSession,
  sessionCookie,
} from '../../lambdas/pages/host-session';

const key = randomBytes(32);
const NOW = Date.parse('2026-11-22T10:00:00Z');
const { claims } = mintActivationToken(
  {
    contact_email: 'h@example.com',
    contact_name: 'H',
    pms_hotel_id: 'P1',
    requested_product_ids: ['assistant'],
  },
  randomBytes(32),
  NOW,
);

function eventWithCookie(cookieHeader: string): APIGatewayProxyEvent {
  return { headers: { Cookie: cookieHeader } } as unknown as APIGatewayProxyEvent;
}

function cookieValue(setCookie: string): string {
  return setCookie.split(';')[0] ?? '';
}

describe('host session cookie', () => {
  it('is encrypted, HttpOnly, SameSite=Lax, Secure outside local, and read back', () => {
    const session = newSession(7, 'acme', claims, NOW);
    const secure = sessionCookie(session, key, true, NOW);
    const local = sessionCookie(session, key, false, NOW);

    expect(secure).toMatch(
      /^activation_session_acme=.+; Max-Age=1800; Path=\/; HttpOnly; SameSite=Lax; Secure$/,
    );
    expect(local).not.toContain('Secure');
    expect(readSession(eventWithCookie(`other=1; ${cookieValue(secure)}`), key, 'acme', NOW)).toEqual(
      session,
    );
  });

  it("keeps the host's e-mail and name unreadable to whoever sees the cookie", () => {
    const value = cookieValue(sessionCookie(newSession(7, 'acme', claims, NOW), key, true, NOW));
    // Every base64 alignment of the e-mail, in both alphabets, besides the text itself.
    const encodings = [0, 1, 2].flatMap((shift) => {
      const bytes = Buffer.concat([Buffer.alloc(shift), Buffer.from(claims.contact_email)]);
      const trim = (text: string) => text.slice(Math.ceil((shift * 4) / 3) + 1, -3);
      return [trim(bytes.toString('base64')), trim(bytes.toString('base64url'))];
    });

    for (const form of [claims.contact_email, encodeURIComponent(claims.contact_email), ...encodings])
      expect(value).not.toContain(form);
    expect(value.length).toBeLessThan(3_000);
  });

  it('never outlives the link before provisioning, and lasts for onboarding after it', () => {
    const session = newSession(7, 'acme', claims, claims.exp * 1000 - 60_000);

    expect(session.exp).toBe(claims.exp);
    expect(newSession(7, 'acme', claims, NOW).exp).toBe(NOW / 1000 + CHOOSING_TTL_SECONDS);
    expect(provisionedSession(session, { hostUserId: 1, propertyId: 2 }, NOW).exp).toBe(
      NOW / 1000 + 12 * 3_600,
    );
  });

  it('refuses a forged, altered, expired or other partner’s session', () => {
    const cookie = cookieValue(sessionCookie(newSession(7, 'acme', claims, NOW), key, true, NOW));
    const [name, value = ''] = cookie.split('=');
    const flipped = `${name}=${value.slice(0, 10)}${value[10] === 'A' ? 'B' : 'A'}${value.slice(11)}`;

    expect(readSession(eventWithCookie(flipped), key, 'acme', NOW)).toBeUndefined();
    expect(readSession(eventWithCookie(cookie), randomBytes(32), 'acme', NOW)).toBeUndefined();
    expect(readSession(eventWithCookie(cookie), key, 'other-pms', NOW)).toBeUndefined();
    expect(
      readSession(eventWithCookie(cookie), key, 'acme', NOW + (CHOOSING_TTL_SECONDS + 1) * 1000),
    ).toBeUndefined();
    expect(readSession(eventWithCookie('activation_session_acme=garbage'), key, 'acme', NOW)).toBeUndefined();
  });

  it('binds the CSRF token to the session', () => {
    const session = newSession(7, 'acme', claims, NOW);
    const other = newSession(7, 'acme', claims, NOW);

    expect(isValidCsrfToken(session, key, csrfToken(session, key))).toBe(true);
    expect(isValidCsrfToken(session, key, csrfToken(other, key))).toBe(false);
    expect(isValidCsrfToken(session, key, null)).toBe(false);
    expect(isValidCsrfToken(session, key, '')).toBe(false);
  });
});
