import { randomBytes } from 'node:crypto';
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { sealForReveal, storedDigestProof } from '../core/contract/reveal-crypto';
import { generateApiKey, isInForce, keyStanding } from '../core/domain/api-key';
import type { Scope } from '../core/domain/scopes';
import { transactionCancellationCodes } from '../lambdas/common/aws-errors';
import type { ApiKeyRecord } from '../lambdas/data/api-keys';
import {
  apiKeyCreationItem,
  getApiKey,
  getApiKeys,
  keyReplacedItem,
  keyRevokedItem,
  keySupersededItem,
} from '../lambdas/data/api-keys';
import { dynamoDb, type TransactItem } from '../lambdas/data/db';
import type { Partner } from '../lambdas/data/partners';
import { getPartner, keysIssuedItem, listPartners } from '../lambdas/data/partners';
import { lastUsedOfKeys } from '../lambdas/data/rate-windows';
import type { RevealRecord, RevealTombstone } from '../lambdas/data/reveals';
import {
  getReveal,
  REVEAL_LIFETIME_MS,
  revealCreationItem,
  revealTombstoneItem,
} from '../lambdas/data/reveals';
import { operatorEventItem } from './audit';
import type { OutgoingMail } from './mailer';
import { revealLinkMail } from './mailer';
import { OperatorError } from './operator-error';
import { requirePartner } from './partner-lookup';
import type { OperatorTarget } from './target';

/** A freshly minted key, ready to be written: the record, its reveal, and the reveal URL. */
export interface IssuedKey {
  readonly record: ApiKeyRecord;
  readonly reveal: RevealRecord;
  readonly revealUrl: string;
}

/**
 * Mints a key and its one-time reveal; the key is pending until the reveal is spent. The
 * plaintext key exists only in this function: it is encrypted for the reveal page and dropped;
 * only its prefix and digest are kept. `retires` are the keys its reveal starts retiring.
 */
export async function issueKey(
  target: OperatorTarget,
  partner: Partner,
  scopes: readonly Scope[],
  nowMs: number,
  rotation?: { readonly retires: readonly string[]; readonly graceMs: number },
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
      sequence: partner.revision + 1,
      state: 'pending',
      revealId,
      ...(rotation ? { retires: rotation.retires, graceMs: rotation.graceMs } : {}),
      ...(usageIdentifierKey === undefined ? {} : { usageIdentifierKey }),
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
      apiBaseUrl: target.apiBaseUrl,
    },
    revealUrl: `${target.activationBaseUrl}/reveal/${revealId}#${sealed.fragmentSecret}`,
  };
}

/** Transaction items that store an issued key, its reveal, and the key on its partner. */
function issuedKeyItems(issued: IssuedKey, partner: Pick<Partner, 'id' | 'revision'>): TransactItem[] {
  return [
    apiKeyCreationItem(issued.record),
    revealCreationItem(issued.reveal),
    keysIssuedItem(partner, [issued.record.prefix]),
  ];
}

/** The message that carries an issued key's reveal link to the partner (sent by the caller). */
export function revealMailOf(
  target: OperatorTarget,
  partner: Partner,
  issued: IssuedKey,
  rotation: boolean,
  replaces?: string,
  rotated?: { readonly keyInUse: boolean; readonly supersedesUnrevealed: boolean },
): OutgoingMail {
  return revealLinkMail({
    ...(replaces === undefined ? {} : { replaces }),
    ...(rotated ?? {}),
    to: partner.contactEmail,
    partnerName: partner.name,
    revealUrl: issued.revealUrl,
    keyPrefix: issued.record.prefix,
    apiBaseUrl: target.apiBaseUrl,
    expiresAt: issued.reveal.expiresAt,
    rotation,
  });
}

export const MAX_GRACE_HOURS = 24 * 30;

/** A partner's keys in the order they were issued, read consistently from the prefixes its item lists. */
export async function keysOfPartner(partner: Pick<Partner, 'keyPrefixes'>): Promise<ApiKeyRecord[]> {
  return (await getApiKeys(partner.keyPrefixes)).sort((a, b) => a.sequence - b.sequence);
}

/**
 * Transaction items that end a key nobody revealed: its new state, and a tombstone on its reveal
 * (when the reveal still holds the key), so the link answers why and never shows the key.
 */
async function killUnrevealedKey(
  key: ApiKeyRecord,
  reason: RevealTombstone,
  nowMs: number,
): Promise<TransactItem[]> {
  const nowIso = new Date(nowMs).toISOString();
  const reveal = key.revealId === undefined ? undefined : await getReveal(key.revealId, nowMs);
  return [
    reason === 'superseded' ? keySupersededItem(key, nowIso) : keyRevokedItem(key, nowIso),
    ...(key.revealId !== undefined && reveal?.ciphertext !== undefined
      ? [revealTombstoneItem(key.revealId, reason, nowIso)]
      : []),
  ];
}

/**
 * Issues a new key. The partner's keys in force keep working until the grace period after the
 * new key is revealed (its reveal writes their end), so a partner is never left without a
 * working key, whatever happens to the link; keys that earlier rotations issued but nobody
 * revealed are superseded, and their links answer so. The new key never has wider scopes than
 * the key it replaces, nor than the agreement; `widenToAgreement` gives it the agreement's
 * scopes (after `partners update` widened them).
 */
export async function rotateKey(
  target: OperatorTarget,
  input: { slug: string; graceHours: number; widenToAgreement?: boolean },
  nowMs: number,
) {
  const partner = await requirePartner(input.slug);
  const keys = await keysOfPartner(partner);
  const current = keys.filter((key) => isInForce(key, nowMs));
  const superseded = keys.filter((key) => key.state === 'pending');
  const newest = current.at(-1);
  const scopes =
    newest && !input.widenToAgreement
      ? newest.scopes.filter((scope) => partner.scopes.includes(scope))
      : partner.scopes;

  const issued = await issueKey(target, partner, scopes, nowMs, {
    retires: current.map((key) => key.prefix),
    graceMs: input.graceHours * 3_600_000,
  });
  const items: TransactItem[] = [
    ...issuedKeyItems(issued, partner),
    ...(await Promise.all(superseded.map((key) => killUnrevealedKey(key, 'superseded', nowMs)))).flat(),
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
  ];
  try {
    await dynamoDb().send(new TransactWriteCommand({ TransactItems: items }));
  } catch (error) {
    // Nothing was written: the API Gateway key made for the new key must not stay usable.
    await target.usagePlanKeys?.remove(issued.record.prefix);
    if (transactionCancellationCodes(error)) {
      throw new OperatorError(
        `A key or the agreement of ${partner.slug} changed while rotating (revealed, revoked or updated meanwhile?). Nothing was issued; run the rotation again.`,
      );
    }
    throw error;
  }
  for (const key of superseded) await target.usagePlanKeys?.remove(key.prefix);
  return {
    result: {
      key_prefix: issued.record.prefix,
      reveal_url: issued.revealUrl,
      reveal_expires_at: issued.reveal.expiresAt,
      grace_hours: input.graceHours,
      retiring: current.map((key) => key.prefix),
      superseded: superseded.map((key) => key.prefix),
    },
    mail: revealMailOf(target, partner, issued, true, undefined, {
      keyInUse: current.length > 0,
      supersedesUnrevealed: superseded.length > 0,
    }),
  };
}

/**
 * Issues the replacement of a revoked key (a leaked one, most often): a new key with the revoked
 * key's scopes (within the agreement), delivered by a reveal link as a rotation's is. Nothing
 * retires: the revoked key is dead, the partner's other keys are not its business.
 */
export async function replaceKey(
  target: OperatorTarget,
  prefix: string,
  nowMs: number,
  /** Runs before anything is issued, with the partner (the CLI checks its mail can go out). */
  beforeIssue: (partner: Partner) => Promise<void> = async () => undefined,
) {
  const revoked = await getApiKey(prefix, { consistent: true });
  if (!revoked)
    throw new OperatorError(
      `No key with prefix ${prefix}. List a partner's keys with: npm run admin -- keys list --partner <slug>`,
    );
  if (revoked.state !== 'revoked')
    throw new OperatorError(
      `Key ${prefix} is ${keyStanding(revoked, nowMs)}, not revoked: replace is for a revoked key. To give its partner a new key, run "npm run admin -- keys rotate --partner <slug>".`,
    );
  if (revoked.replacedBy !== undefined)
    throw new OperatorError(
      `Key ${prefix} was already replaced by ${revoked.replacedBy}: "npm run admin -- keys list" shows its state. If that link expired or was lost, run "npm run admin -- keys rotate --partner <slug>".`,
    );
  const partner = await getPartner(revoked.partnerId, { consistent: true });
  if (!partner) throw new OperatorError(`The partner of key ${prefix} no longer exists.`);
  await beforeIssue(partner);
  const scopes = revoked.scopes.filter((scope) => partner.scopes.includes(scope));
  const issued = await issueKey(target, partner, scopes.length > 0 ? scopes : partner.scopes, nowMs);
  const items: TransactItem[] = [
    ...issuedKeyItems(issued, partner),
    keyReplacedItem(revoked, issued.record.prefix),
    operatorEventItem(
      target,
      'key.issued',
      {
        partnerId: partner.id,
        keyPrefix: issued.record.prefix,
        details: { scopes: issued.record.scopes, replaces: prefix },
      },
      nowMs,
    ),
  ];
  try {
    await dynamoDb().send(new TransactWriteCommand({ TransactItems: items }));
  } catch (error) {
    await target.usagePlanKeys?.remove(issued.record.prefix);
    if (transactionCancellationCodes(error))
      throw new OperatorError(
        `Key ${prefix} was replaced, or a key or the agreement of ${partner.slug} changed, meanwhile. Nothing was issued: "npm run admin -- keys list --partner ${partner.slug}" shows where it stands.`,
      );
    throw error;
  }
  return {
    result: {
      partner: partner.slug,
      replaces: prefix,
      key_prefix: issued.record.prefix,
      scopes: issued.record.scopes,
      reveal_url: issued.revealUrl,
      reveal_expires_at: issued.reveal.expiresAt,
    },
    mail: revealMailOf(target, partner, issued, true, prefix),
  };
}

/** How many times a revocation is tried again when only its reveal changed under it (TTL, a race). */
const REVOCATION_ATTEMPTS = 3;

/**
 * Revokes a key at once (in effect on the API within 30 s). A key nobody revealed has its link
 * killed in the same transaction; the keys it would have retired keep working. A key that is
 * already dead stays as it is, and the result says why. If the key changes state while it is
 * being revoked (its reveal spent a moment earlier), nothing is revoked: the operator decided on
 * a key that is no longer what they saw. The result warns when the partner is left with no key
 * in force.
 */
export async function revokeKey(target: OperatorTarget, prefix: string, nowMs: number) {
  const seen = await getApiKey(prefix, { consistent: true });
  if (!seen)
    throw new OperatorError(
      `No key with prefix ${prefix}. List a partner's keys with: npm run admin -- keys list --partner <slug>`,
    );
  if (seen.state === 'revoked' || seen.state === 'superseded')
    return {
      key_prefix: prefix,
      changed: false,
      state: seen.state,
      revoked_at: seen.revokedAt ?? null,
      superseded_at: seen.supersededAt ?? null,
      warning: null,
    };
  const nowIso = new Date(nowMs).toISOString();
  for (let attempt = 1, key = seen; attempt <= REVOCATION_ATTEMPTS; attempt += 1) {
    if (key.state !== seen.state || key.expiresAt !== seen.expiresAt)
      throw new OperatorError(
        `Key ${prefix} changed from ${seen.state} to ${key.state} while revoking it (its reveal was just used?). Nothing was changed: check with "npm run admin -- keys list" and run the command again if you still mean to revoke it.`,
      );
    const items = [
      ...(key.state === 'pending'
        ? await killUnrevealedKey(key, 'revoked', nowMs)
        : [keyRevokedItem(key, nowIso)]),
      operatorEventItem(target, 'key.revoked', { partnerId: key.partnerId, keyPrefix: prefix }, nowMs),
    ];
    try {
      await dynamoDb().send(new TransactWriteCommand({ TransactItems: items }));
    } catch (error) {
      if (!transactionCancellationCodes(error)) throw error;
      key = (await getApiKey(prefix, { consistent: true })) ?? key;
      continue;
    }
    await target.usagePlanKeys?.remove(prefix);
    return {
      key_prefix: prefix,
      changed: true,
      state: 'revoked',
      revoked_at: nowIso,
      superseded_at: null,
      warning: await keysLeftWarning(key.partnerId, nowMs),
    };
  }
  throw new OperatorError(
    `Key ${prefix} kept changing while revoking it; nothing was changed. Run the command again.`,
  );
}

/** What a revocation leaves the partner: a warning when no key of it is in force any more. */
async function keysLeftWarning(partnerId: number, nowMs: number): Promise<string | null> {
  const partner = await getPartner(partnerId, { consistent: true });
  if (!partner) return null;
  const keys = await keysOfPartner(partner);
  if (keys.some((key) => key.state === 'active')) return null;
  const retiring = keys.filter((key) => isInForce(key, nowMs));
  const pending = keys.filter((key) => key.state === 'pending');
  const rotate = `npm run admin -- keys rotate --partner ${partner.slug}`;
  if (retiring.length > 0)
    return `${partner.slug} has no key without an end: ${retiring.map((key) => `${key.prefix} retires at ${key.expiresAt}`).join(', ')}${pending.length > 0 ? `; its pending reveal link (${pending.map((key) => key.prefix).join(', ')}) gives it one once opened` : `. Issue one: ${rotate}`}.`;
  return pending.length > 0
    ? `${partner.slug} has no key in force; its pending reveal link (${pending.map((key) => key.prefix).join(', ')}) gives it one once opened.`
    : `${partner.slug} has no key in force any more: its API calls are refused. Issue one: ${rotate}`;
}

/**
 * Deletes the API Gateway keys of every partner key that can no longer work (revoked,
 * superseded or expired): API Gateway holds at most 10,000 keys per region. Keys in force and
 * keys waiting for their reveal keep theirs. Nothing to do locally.
 */
export async function pruneUsagePlanKeys(target: OperatorTarget, nowMs: number) {
  const removed: string[] = [];
  if (!target.usagePlanKeys) return { removed };
  for (const partner of await listPartners()) {
    for (const key of await keysOfPartner(partner)) {
      if (key.usageIdentifierKey === undefined || key.state === 'pending' || isInForce(key, nowMs)) continue;
      await target.usagePlanKeys.remove(key.prefix);
      removed.push(key.prefix);
    }
  }
  return { removed };
}

/** A partner's keys with their state and its times, and their last use; never the keys themselves. */
export async function listKeys(slug: string, nowMs: number) {
  const partner = await requirePartner(slug);
  const keys = await keysOfPartner(partner);
  const lastUsed = await lastUsedOfKeys(keys.map((key) => key.prefix));
  // A pending key retires, once revealed, the keys it lists: they wait for it.
  const waitsFor = (key: ApiKeyRecord) =>
    keys
      .filter((other) => other.state === 'pending' && other.retires?.includes(key.prefix))
      .map((other) => ({ key_prefix: other.prefix, grace_hours: (other.graceMs ?? 0) / 3_600_000 }));
  return {
    partner: partner.slug,
    suspended: partner.suspension !== undefined,
    keys: keys.map((key) => ({
      key_prefix: key.prefix,
      state: keyStanding(key, nowMs),
      scopes: key.scopes,
      created_at: key.createdAt,
      revealed_at: key.revealedAt ?? null,
      reveal_expires_at:
        key.state === 'pending'
          ? new Date(Date.parse(key.createdAt) + REVEAL_LIFETIME_MS).toISOString()
          : null,
      expires_at: key.expiresAt ?? null,
      revoked_at: key.revokedAt ?? null,
      leak_url: key.leak?.url ?? null,
      leak_source: key.leak?.source ?? null,
      leak_reported_by: key.leak?.reportedBy ?? null,
      superseded_at: key.supersededAt ?? null,
      replaced_by: key.replacedBy ?? null,
      retires_after_reveal_of: isInForce(key, nowMs) ? waitsFor(key) : [],
      last_used_at: lastUsed.get(key.prefix) ?? null,
    })),
  };
}
