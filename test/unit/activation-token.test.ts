import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  claimedNonce,
  InvalidActivationClaimsError,
  MAX_TOKEN_LENGTH,
  MAX_TOKEN_TTL_SECONDS,
  mintActivationToken,
  verifyActivationToken,
} from '../../core/domain/activation-token';
import { signJson } from '../../core/domain/signed-json';

const secret = randomBytes(32);
const otherSecret = randomBytes(32);
const NOW = Date.parse('2026-11-22T10:00:00Z');
const input = {
  contact_email: 'host@example.com',
  contact_name: 'Casa Verde',
  pms_hotel_id: 'PMS-42',
  requested_product_ids: ['assistant', 'upsells'] as const,
};
const { token, claims } = mintActivationToken(
  { ...input, requested_product_ids: [...input.requested_product_ids] },
  secret,
  NOW,
);
const BASE64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

describe('activation token', () => {
  it('carries exactly the six claims, an hour of validity and a 128-bit nonce', () => {
    expect(Object.keys(claims).sort()).toEqual([
      'contact_email',
      'contact_name',
      'exp',
      'nonce',
      'pms_hotel_id',
      'requested_product_ids',
    ]);
    expect(claims.exp).toBe(NOW / 1000 + 3_600);
    expect(Buffer.from(claims.nonce, 'base64url')).toHaveLength(16);
    expect(token).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/);
    expect(verifyActivationToken(token, secret, NOW)).toEqual({ ok: true, claims });
    expect(claimedNonce(token)).toBe(claims.nonce);
  });

  it('never mints claims the activation page would refuse', () => {
    const mint = (email: string, name = 'Casa') =>
      mintActivationToken(
        {
          contact_email: email,
          contact_name: name,
          pms_hotel_id: 'P1',
          requested_product_ids: ['assistant'],
        },
        secret,
        NOW,
      );

    expect(() => mint('a@b.c')).toThrow(InvalidActivationClaimsError);
    expect(() => mint('host@example.com', 'two\nlines')).toThrow(/contact_name/);
    expect(() => mint('host@example.com')).not.toThrow();
  });

  it('never mints the same nonce twice', () => {
    const nonces = new Set(
      Array.from(
        { length: 1_000 },
        () =>
          mintActivationToken({ ...input, requested_product_ids: ['assistant'] }, secret, NOW).claims.nonce,
      ),
    );

    expect(nonces.size).toBe(1_000);
  });

  it('refuses any single-character change anywhere in the token', () => {
    fc.assert(
      fc.property(
        fc.nat({ max: token.length - 1 }),
        fc.constantFrom(...BASE64URL, '.', '=', '+', '/'),
        (index, replacement) => {
          fc.pre(token[index] !== replacement);
          const changed = token.slice(0, index) + replacement + token.slice(index + 1);

          expect(verifyActivationToken(changed, secret, NOW).ok).toBe(false);
        },
      ),
      { numRuns: 2_000 },
    );
  });

  it('refuses any single-byte change of the decoded payload or signature', () => {
    const [payload = '', signature = ''] = token.split('.');
    const payloadBytes = Buffer.from(payload, 'base64url');
    const signatureBytes = Buffer.from(signature, 'base64url');
    fc.assert(
      fc.property(fc.boolean(), fc.nat(), fc.integer({ min: 1, max: 255 }), (inPayload, position, xor) => {
        const bytes = Buffer.from(inPayload ? payloadBytes : signatureBytes);
        const index = position % bytes.length;
        bytes[index] = (bytes[index] ?? 0) ^ xor;
        const changed = inPayload
          ? `${bytes.toString('base64url')}.${signature}`
          : `${payload}.${bytes.toString('base64url')}`;
        const result = verifyActivationToken(changed, secret, NOW);

        expect(result.ok).toBe(false);
        if (!result.ok) expect(['malformed', 'bad-signature']).toContain(result.reason);
      }),
      { numRuns: 2_000 },
    );
  });

  it('refuses a token of another partner (signed with another secret)', () => {
    expect(verifyActivationToken(token, otherSecret, NOW)).toEqual({ ok: false, reason: 'bad-signature' });
  });

  it('expires at exp, to the second', () => {
    expect(verifyActivationToken(token, secret, claims.exp * 1000 - 1).ok).toBe(true);
    expect(verifyActivationToken(token, secret, claims.exp * 1000)).toMatchObject({
      ok: false,
      reason: 'expired',
      claims,
    });
  });

  it('refuses well-signed payloads that are not exactly the claims', () => {
    const sign = (value: unknown) => signJson(value, secret);

    for (const payload of [
      { ...claims, admin: true },
      { ...claims, exp: '9999999999' },
      { ...claims, requested_product_ids: ['Espresso machine'] },
      { ...claims, requested_product_ids: Array.from({ length: 21 }, (_, index) => `product-${index}`) },
      { ...claims, requested_product_ids: [] },
      { ...claims, contact_email: 'not-an-address' },
      { ...claims, nonce: 'short' },
      { ...claims, pms_hotel_id: 'has space' },
      [claims],
      'claims',
      null,
    ]) {
      expect(verifyActivationToken(sign(payload), secret, NOW)).toEqual({
        ok: false,
        reason: 'invalid-claims',
      });
    }
  });

  it('refuses oversized, non-canonical and misshapen tokens before any parsing', () => {
    const [payload = '', signature = ''] = token.split('.');

    expect(
      verifyActivationToken(`${payload}.${signature}`.padEnd(MAX_TOKEN_LENGTH + 1, 'A'), secret, NOW),
    ).toEqual({ ok: false, reason: 'malformed' });
    expect(verifyActivationToken(`${payload}=.${signature}`, secret, NOW)).toEqual({
      ok: false,
      reason: 'malformed',
    });
    expect(verifyActivationToken(`${payload}.${signature}.x`, secret, NOW)).toEqual({
      ok: false,
      reason: 'malformed',
    });
    expect(verifyActivationToken(payload, secret, NOW)).toEqual({ ok: false, reason: 'malformed' });
    expect(verifyActivationToken('', secret, NOW)).toEqual({ ok: false, reason: 'malformed' });
  });

  it('never throws, whatever it is given', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ maxLength: 5_000 }),
          fc.string({ unit: 'binary' }),
          fc.tuple(fc.base64String(), fc.base64String()).map(([a, b]) => `${a}.${b}`),
          fc.jsonValue().map((value) => signJson(value, secret)),
        ),
        (candidate) => {
          expect(() => verifyActivationToken(candidate, secret, NOW)).not.toThrow();
          expect(() => claimedNonce(candidate)).not.toThrow();
        },
      ),
      { numRuns: 3_000 },
    );
  });

  it('refuses an exp beyond the longest life a link may have (7 days, with 5 minutes of clock skew)', () => {
    const withExp = (exp: number) => signJson({ ...claims, exp }, secret);
    const nowSeconds = NOW / 1000;

    expect(verifyActivationToken(withExp(nowSeconds + MAX_TOKEN_TTL_SECONDS), secret, NOW).ok).toBe(true);
    expect(verifyActivationToken(withExp(nowSeconds + MAX_TOKEN_TTL_SECONDS + 300), secret, NOW).ok).toBe(
      true,
    );
    for (const exp of [
      nowSeconds + MAX_TOKEN_TTL_SECONDS + 301,
      nowSeconds + 365 * 86_400,
      Number.MAX_SAFE_INTEGER,
    ])
      expect(verifyActivationToken(withExp(exp), secret, NOW)).toEqual({
        ok: false,
        reason: 'invalid-claims',
      });
    expect(() =>
      mintActivationToken(
        { ...input, requested_product_ids: ['assistant'] },
        secret,
        NOW,
        MAX_TOKEN_TTL_SECONDS + 1,
      ),
    ).toThrow(InvalidActivationClaimsError);
  });
});
