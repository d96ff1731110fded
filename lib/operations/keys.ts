import { randomBytes } from 'node:crypto';
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { ApiKeyRecord } from '../../lambdas/data/api-keys';
import {
  apiKeyCreationItem,
  apiKeyExpiryItem,
  apiKeyKey,
  listApiKeysOfPartner,
  revokeApiKey,
} from '../../lambdas/data/api-keys';
import { documentClient, TABLE_NAME } from '../../lambdas/data/db';
import type { Partner } from '../../lambdas/data/partners';
import { getPartnerBySlug } from '../../lambdas/data/partners';
import { lastUsedOfKeys } from '../../lambdas/data/rate-windows';
import type { RevealRecord } from '../../lambdas/data/reveals';
import { REVEAL_LIFETIME_MS, revealCreationItem } from '../../lambdas/data/reveals';
import { apiKeyState, generateApiKey } from '../../lambdas/domain/api-key';
import { sealForReveal } from '../../lambdas/domain/reveal-crypto';
import type { Scope } from '../../lambdas/domain/scopes';
import { scopesForAgreement } from '../../lambdas/domain/scopes';
import type { MailReceipt } from './mailer';
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
    },
    reveal: {
      revealId,
      partnerId: partner.id,
      partnerName: partner.name,
      keyPrefix: material.prefix,
      secretDigest: sealed.secretDigest,
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

export async function sendRevealLink(
  target: OperatorTarget,
  partner: Partner,
  issued: IssuedKey,
  rotation: boolean,
): Promise<MailReceipt> {
  return target.mailer.send(
    revealLinkMail({
      to: partner.contactEmail,
      partnerName: partner.name,
      revealUrl: issued.revealUrl,
      keyPrefix: issued.record.prefix,
      apiBaseUrl: target.apiBaseUrl,
      rotation,
    }),
  );
}

export async function requirePartner(slug: string): Promise<Partner> {
  const partner = await getPartnerBySlug(slug);
  if (!partner)
    throw new OperatorError(`No partner with slug "${slug}". List them with: npm run admin -- partners list`);
  return partner;
}

export const MAX_GRACE_HOURS = 24 * 30;

/**
 * Issues a new key and gives the partner's current key an expiry after a grace period, so
 * both work until the partner has switched. The new key never has wider scopes than the one
 * it replaces (nor than the agreement), and no expiry is ever pushed later.
 */
export async function rotateKey(
  target: OperatorTarget,
  input: { slug: string; graceHours: number },
  nowMs: number,
) {
  const partner = await requirePartner(input.slug);
  const keys = await listApiKeysOfPartner(partner.id);
  const current = keys.filter((key) => apiKeyState(key, nowMs) === 'active').at(-1);
  const agreementScopes = scopesForAgreement(partner.revenueAccess);
  const scopes = current
    ? current.scopes.filter((scope) => agreementScopes.includes(scope))
    : agreementScopes;
  const graceEnd = new Date(nowMs + input.graceHours * 3_600_000).toISOString();
  const previousExpiresAt =
    current?.expiresAt !== undefined && current.expiresAt < graceEnd ? current.expiresAt : graceEnd;

  const issued = await issueKey(target, partner, scopes, nowMs);
  const items: TransactItem[] = [...issuedKeyItems(issued)];
  if (current) {
    items.push(
      previousExpiresAt === graceEnd
        ? apiKeyExpiryItem(current.prefix, graceEnd)
        : {
            ConditionCheck: {
              TableName: TABLE_NAME,
              Key: apiKeyKey(current.prefix),
              ConditionExpression: 'attribute_not_exists(revokedAt)',
            },
          },
    );
  }
  try {
    await documentClient.send(new TransactWriteCommand({ TransactItems: items }));
  } catch (error) {
    // Nothing was written: the API Gateway key made for the new key must not stay usable.
    await target.usagePlanKeys?.disable(issued.record.prefix);
    if ((error as Error).name === 'TransactionCanceledException') {
      throw new OperatorError(
        `Key ${current?.prefix ?? ''} changed while rotating (revoked meanwhile?). Run the rotation again.`,
      );
    }
    throw error;
  }
  const mail = await sendRevealLink(target, partner, issued, true);
  return {
    result: {
      key_prefix: issued.record.prefix,
      reveal_url: issued.revealUrl,
      previous_key_prefix: current?.prefix ?? null,
      previous_key_expires_at: current ? previousExpiresAt : null,
    },
    mail,
  };
}

/** Revokes a key at once (in effect on the API within 30 s). */
export async function revokeKey(target: OperatorTarget, prefix: string, nowMs: number) {
  const revoked = await revokeApiKey(prefix, new Date(nowMs).toISOString());
  if (!revoked?.revokedAt)
    throw new OperatorError(
      `No key with prefix ${prefix}. List a partner's keys with: npm run admin -- keys list --partner <slug>`,
    );
  await target.usagePlanKeys?.disable(prefix);
  return { key_prefix: prefix, revoked_at: revoked.revokedAt };
}

/** A partner's keys with their state and last use; never the keys themselves. */
export async function listKeys(slug: string, nowMs: number) {
  const partner = await requirePartner(slug);
  const keys = await listApiKeysOfPartner(partner.id);
  const lastUsed = await lastUsedOfKeys(keys.map((key) => key.prefix));
  return {
    partner: partner.slug,
    keys: keys.map((key) => ({
      key_prefix: key.prefix,
      state: apiKeyState(key, nowMs),
      scopes: key.scopes,
      created_at: key.createdAt,
      expires_at: key.expiresAt ?? null,
      revoked_at: key.revokedAt ?? null,
      last_used_at: lastUsed.get(key.prefix) ?? null,
    })),
  };
}
