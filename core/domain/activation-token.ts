import { randomBytes } from 'node:crypto';
import * as z from 'zod/mini';
import type { ProductId } from './catalog';
import { MAX_PRODUCTS, PRODUCT_ID_PATTERN } from './catalog';
import { emailAddressSchema } from './email-address';
import { PMS_HOTEL_ID_PATTERN } from './properties';
import { signJson, unverifiedPayload, verifySignedJson } from './signed-json';
import { isOneLine } from './text';

/** Longest token accepted: far above a real one (~500 characters), checked before any parsing. */
export const MAX_TOKEN_LENGTH = 4_096;
/** The longest contact name a link carries (and `HostProvisioned` passes on). */
export const MAX_CONTACT_NAME_LENGTH = 120;
const DEFAULT_TOKEN_TTL_SECONDS = 3_600;
/** The longest life a link may have (`links create --ttl-seconds`); a later `exp` is refused. */
export const MAX_TOKEN_TTL_SECONDS = 7 * 24 * 3_600;
/** How far a partner's clock may run ahead of ours when it sets `exp`. */
const CLOCK_SKEW_SECONDS = 300;

/**
 * The six claims of docs/design/activation-links.md, exactly: an unknown claim makes the token
 * invalid. Built on the first verification, not at module load, so pages that only read a
 * session never pay for it.
 */
let claimsSchema: ReturnType<typeof buildClaimsSchema> | undefined;

function buildClaimsSchema() {
  return z.strictObject({
    contact_email: emailAddressSchema(),
    contact_name: z.string().check(z.minLength(1), z.maxLength(MAX_CONTACT_NAME_LENGTH), z.refine(isOneLine)),
    pms_hotel_id: z.string().check(z.regex(new RegExp(PMS_HOTEL_ID_PATTERN))),
    requested_product_ids: z
      .array(z.string().check(z.regex(PRODUCT_ID_PATTERN)))
      .check(z.minLength(1), z.maxLength(MAX_PRODUCTS)),
    exp: z.int().check(z.positive()),
    nonce: z.string().check(z.regex(/^[A-Za-z0-9_-]{22,64}$/)),
  });
}

export interface ActivationClaims {
  readonly contact_email: string;
  readonly contact_name: string;
  readonly pms_hotel_id: string;
  readonly requested_product_ids: readonly ProductId[];
  /** Unix seconds, set by the server. */
  readonly exp: number;
  /** At least 128 random bits, base64url. */
  readonly nonce: string;
}

export type ActivationTokenCheck =
  | { readonly ok: true; readonly claims: ActivationClaims }
  | {
      readonly ok: false;
      readonly reason: 'malformed' | 'bad-signature' | 'invalid-claims' | 'expired';
      readonly claims?: ActivationClaims;
    };

/** A fresh nonce: 128 random bits. */
export function newNonce(): string {
  return randomBytes(16).toString('base64url');
}

export function mintActivationToken(
  input: Omit<ActivationClaims, 'exp' | 'nonce'>,
  signingSecret: Uint8Array,
  nowMs: number,
  ttlSeconds = DEFAULT_TOKEN_TTL_SECONDS,
): { token: string; claims: ActivationClaims } {
  if (!Number.isInteger(ttlSeconds) || ttlSeconds < 1 || ttlSeconds > MAX_TOKEN_TTL_SECONDS)
    throw new InvalidActivationClaimsError([`exp must be 1 s to ${MAX_TOKEN_TTL_SECONDS} s from now`]);
  const claims: ActivationClaims = {
    contact_email: input.contact_email,
    contact_name: input.contact_name,
    pms_hotel_id: input.pms_hotel_id,
    requested_product_ids: input.requested_product_ids,
    exp: Math.floor(nowMs / 1000) + ttlSeconds,
    nonce: newNonce(),
  };
  const problems = activationClaimProblems(claims);
  if (problems.length > 0) throw new InvalidActivationClaimsError(problems);
  return { token: signJson(claims, signingSecret), claims };
}

/** Claims the activation page would refuse: a link is never minted with them. */
export class InvalidActivationClaimsError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(`Invalid activation claims: ${problems.join('; ')}`);
    this.name = 'InvalidActivationClaimsError';
  }
}

/** What is wrong with a set of claims, by claim name (empty when the page would accept them). */
export function activationClaimProblems(claims: unknown): string[] {
  claimsSchema ??= buildClaimsSchema();
  const parsed = z.safeParse(claimsSchema, claims);
  return parsed.success
    ? []
    : parsed.error.issues.map((issue) => `${issue.path.join('.') || 'claims'} is not valid`);
}

/**
 * The order: shape and size, signature (constant time), claims schema, expiry (neither past nor
 * beyond the longest life a link may have). The
 * partner comes first from the URL's slug; the nonce is checked against the table last.
 */
export function verifyActivationToken(
  token: string,
  signingSecret: Uint8Array,
  nowMs: number,
): ActivationTokenCheck {
  const signed = verifySignedJson(token, signingSecret, MAX_TOKEN_LENGTH);
  if (!signed.ok) return signed;
  claimsSchema ??= buildClaimsSchema();
  const parsed = z.safeParse(claimsSchema, signed.payload);
  if (!parsed.success) return { ok: false, reason: 'invalid-claims' };
  const claims: ActivationClaims = parsed.data;
  // An `exp` beyond the longest life a link may have is not a link we or a partner should make
  // (and far-future values overflow the date arithmetic of sessions).
  if (claims.exp > Math.floor(nowMs / 1000) + MAX_TOKEN_TTL_SECONDS + CLOCK_SKEW_SECONDS)
    return { ok: false, reason: 'invalid-claims' };
  if (claims.exp * 1000 <= nowMs) return { ok: false, reason: 'expired', claims };
  return { ok: true, claims };
}

/** The nonce a token claims, unverified: to tell a link of another partner from a forged one. */
export function claimedNonce(token: string): string | undefined {
  const payload = unverifiedPayload(token, MAX_TOKEN_LENGTH);
  const nonce =
    typeof payload === 'object' && payload !== null ? (payload as { nonce?: unknown }).nonce : undefined;
  return typeof nonce === 'string' && /^[A-Za-z0-9_-]{22,64}$/.test(nonce) ? nonce : undefined;
}
