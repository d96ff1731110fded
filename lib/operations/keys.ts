import { randomBytes } from 'node:crypto';
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { sealForReveal, storedDigestProof } from '../../contract/reveal-crypto';
import type { ApiKeyRecord } from '../../lambdas/data/api-keys';
import {
  apiKeyCreationItem,
  apiKeyReplacementItem,
  apiKeyRevocationItem,
  listApiKeysOfPartner,
  revokeApiKey,
} from '../../lambdas/data/api-keys';
import { documentClient } from '../../lambdas/data/db';
import type { Partner } from '../../lambdas/data/partners';
import { agreementCheckItem, getPartnerBySlug, listPartners } from '../../lambdas/data/partners';
import { lastUsedOfKeys } from '../../lambdas/data/rate-windows';
import type { RevealRecord } from '../../lambdas/data/reveals';
import { REVEAL_LIFETIME_MS, revealCreationItem, revealTimes } from '../../lambdas/data/reveals';
import { apiKeyState, generateApiKey, withRetirement } from '../../lambdas/domain/api-key';
import type { Scope } from '../../lambdas/domain/scopes';
import { operatorEventItem, recordOperatorEvent } from './audit';
import type { OutgoingMail } from './mailer';
import { revealLinkMail } from './mailer';
import { OperatorError } from './operator-error';
import type { OperatorTarget } from './target';

type TransactItem = ReturnType<typeof apiKeyCreationItem>;

/** A freshly minted key, ready to be written: the record, its reveal, and the reveal URL. */
export interface IssuedKey {
  readonly record: ApiKeyRecord;
  readonly reveal: RevealRecord;
  readonly revealUrl: string;
}

/**
 * Mints a key and its one-time reveal. The plaintext key exists only in this function: it is
 * encrypted for the reveal page and dropped; only its prefix and digest are kept.
 */
export async function issueKey(
  target: OperatorTarget,
  partner: Partner,
  scopes: readonly Scope[],
  nowMs: number,
): Promise<IssuedKey> {
  const material = generateApiKey();
  const sealed = sealForReveal(material.key);
  const revealId = randomBytes(18).toString('base64url');
  const createdAt = new Date(nowMs).toISOString();
  const usageIdentifierKey = await target.usagePlanKeys?.issue(material.prefix, partner.slug);
  return {
    record: {
      prefix: material.prefix,
      partnerId: partner.id,
      digest: material.digest,
      scopes,
      createdAt,
      usageIdentifierKey,
      revealId,
    },
    reveal: {
      revealId,
      partnerId: partner.id,
      partnerName: partner.name,
      keyPrefix: material.prefix,
      secretDigestProof: storedDigestProof(sealed.secretDigest),
      iv: sealed.iv,
      ciphertext: sealed.ciphertext,
      createdAt,
      expiresAt: new Date(nowMs + REVEAL_LIFETIME_MS).toISOString(),
    },
    revealUrl: `${target.activationBaseUrl}/reveal/${revealId}#${sealed.fragmentSecret}`,
  };
}

/** Transaction items that store an issued key and its reveal. */
export function issuedKeyItems(issued: IssuedKey): TransactItem[] {
  return [apiKeyCreationItem(issued.record), revealCreationItem(issued.reveal)];
}

/** The message that carries an issued key's reveal link to the partner (sent by the caller). */
export function revealMailOf(
  target: OperatorTarget,
  partner: Partner,
  issued: IssuedKey,
  rotation: boolean,
): OutgoingMail {
  return revealLinkMail({
    to: partner.contactEmail,
    partnerName: partner.name,
    revealUrl: issued.revealUrl,
    keyPrefix: issued.record.prefix,
    apiBaseUrl: target.apiBaseUrl,
    rotation,
  });
}

export async function requirePartner(slug: string): Promise<Partner> {
  const partner = await getPartnerBySlug(slug);
  if (!partner)
    throw new OperatorError(`No partner with slug "${slug}". List them with: npm run admin -- partners list`);
  return partner;
}

export const MAX_GRACE_HOURS = 24 * 30;

/** A partner's keys as in force now: each with its retirement by a revealed replacement applied. */
export async function keysInForce(partnerId: number) {
  const keys = await listApiKeysOfPartner(partnerId);
  const revealIds = keys.flatMap((key) => [
    ...(key.revealId ? [key.revealId] : []),
    ...(key.replacements ?? []).map((replacement) => replacement.revealId),
  ]);
  const revealed = await revealTimes(revealIds);
  return {
    revealed,
    keys: keys.map((key) => (key.revokedAt === undefined ? withRetirement(key, revealed) : key)),
  };
}

/**
 * Issues a new key. The partner's current keys keep working until the grace period after the new
 * key is revealed, so a partner is never left without a working key, whatever happens to the
 * link; keys that earlier rotations issued but nobody revealed are revoked (their links stop
 * working). The new key never has wider scopes than the key it replaces, nor than the agreement;
 * `widenToAgreement` gives it the agreement's scopes (after `partners update` widened them).
 */
export async function rotateKey(
  target: OperatorTarget,
  input: { slug: string; graceHours: number; widenToAgreement?: boolean },
  nowMs: number,
) {
  const partner = await requirePartner(input.slug);
  const { keys, revealed } = await keysInForce(partner.id);
  const active = keys.filter((key) => apiKeyState(key, nowMs) === 'active');
  const neverRevealed = (key: ApiKeyRecord) => key.revealId !== undefined && !revealed.has(key.revealId);
  const superseded = active.filter(neverRevealed);
  const current = active.filter((key) => !neverRevealed(key));
  const newest = current.at(-1);
  const scopes =
    newest && !input.widenToAgreement
      ? newest.scopes.filter((scope) => partner.scopes.includes(scope))
      : partner.scopes;

  const issued = await issueKey(target, partner, scopes, nowMs);
  const replacement = {
    keyPrefix: issued.record.prefix,
    revealId: issued.reveal.revealId,
    graceMs: input.graceHours * 3_600_000,
  };
  const nowIso = new Date(nowMs).toISOString();
  const items: TransactItem[] = [
    ...issuedKeyItems(issued),
    agreementCheckItem(partner),
    ...current.map((key) => apiKeyReplacementItem(key.prefix, replacement)),
    ...superseded.map((key) => apiKeyRevocationItem(key.prefix, nowIso)),
    operatorEventItem(
      target,
      'key.rotated',
      {
        partnerId: partner.id,
        keyPrefix: issued.record.prefix,
        details: {
          retiring: current.map((key) => key.prefix),
          superseded: superseded.map((key) => key.prefix),
          grace_hours: input.graceHours,
        },
      },
      nowMs,
    ),
    operatorEventItem(
      target,
      'key.issued',
      { partnerId: partner.id, keyPrefix: issued.record.prefix, details: { scopes } },
      nowMs,
    ),
    ...superseded.map((key) =>
      operatorEventItem(
        target,
        'key.revoked',
        { partnerId: partner.id, keyPrefix: key.prefix, details: { reason: 'superseded (never revealed)' } },
        nowMs,
      ),
    ),
  ];
  try {
    await documentClient.send(new TransactWriteCommand({ TransactItems: items }));
  } catch (error) {
    // Nothing was written: the API Gateway key made for the new key must not stay usable.
    await target.usagePlanKeys?.remove(issued.record.prefix);
    if ((error as Error).name === 'TransactionCanceledException') {
      throw new OperatorError(
        `A key or the agreement of ${partner.slug} changed while rotating (revoked or updated meanwhile?). Nothing was issued; run the rotation again.`,
      );
    }
    throw error;
  }
  for (const key of superseded) await target.usagePlanKeys?.remove(key.prefix);
  return {
    result: {
      key_prefix: issued.record.prefix,
      reveal_url: issued.revealUrl,
      grace_hours: input.graceHours,
      retiring: current.map((key) => key.prefix),
      superseded: superseded.map((key) => key.prefix),
    },
    mail: revealMailOf(target, partner, issued, true),
  };
}

/** Revokes a key at once (in effect on the API within 30 s). */
export async function revokeKey(target: OperatorTarget, prefix: string, nowMs: number) {
  const nowIso = new Date(nowMs).toISOString();
  const revoked = await revokeApiKey(prefix, nowIso);
  if (!revoked?.revokedAt)
    throw new OperatorError(
      `No key with prefix ${prefix}. List a partner's keys with: npm run admin -- keys list --partner <slug>`,
    );
  await target.usagePlanKeys?.remove(prefix);
  // Revoking again keeps the first time; only the revocation itself is an event.
  if (revoked.revokedAt === nowIso)
    await recordOperatorEvent(
      target,
      'key.revoked',
      { partnerId: revoked.partnerId, keyPrefix: prefix },
      nowMs,
    );
  return { key_prefix: prefix, revoked_at: revoked.revokedAt };
}

/**
 * Deletes the API Gateway keys of every partner key that no longer works (revoked or expired):
 * API Gateway holds at most 10,000 keys per region. Nothing to do locally.
 */
export async function pruneUsagePlanKeys(target: OperatorTarget, nowMs: number) {
  const removed: string[] = [];
  if (!target.usagePlanKeys) return { removed };
  for (const partner of await listPartners()) {
    for (const key of (await keysInForce(partner.id)).keys) {
      if (key.usageIdentifierKey === undefined || apiKeyState(key, nowMs) === 'active') continue;
      await target.usagePlanKeys.remove(key.prefix);
      removed.push(key.prefix);
    }
  }
  return { removed };
}

/** A partner's keys with their state and last use; never the keys themselves. */
export async function listKeys(slug: string, nowMs: number) {
  const partner = await requirePartner(slug);
  const { keys, revealed } = await keysInForce(partner.id);
  const lastUsed = await lastUsedOfKeys(keys.map((key) => key.prefix));
  return {
    partner: partner.slug,
    keys: keys.map((key) => ({
      key_prefix: key.prefix,
      state: apiKeyState(key, nowMs),
      scopes: key.scopes,
      created_at: key.createdAt,
      revealed: key.revealId === undefined || revealed.has(key.revealId),
      expires_at: key.expiresAt ?? null,
      retires_after_reveal_of: (key.replacements ?? [])
        .filter((replacement) => !revealed.has(replacement.revealId))
        .map((replacement) => replacement.keyPrefix),
      revoked_at: key.revokedAt ?? null,
      last_used_at: lastUsed.get(key.prefix) ?? null,
    })),
  };
}
