import { timingSafeEqual } from 'node:crypto';
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { storedDigestProof } from '../../core/contract/reveal-crypto';
import { retirementAt } from '../../core/domain/api-key';
import { transactionCancellationCodes } from '../common/aws-errors';
import type { ApiKeyRecord } from './api-keys';
import { getApiKey, getApiKeys, keyRetiringItem, keyRevealedItem } from './api-keys';
import { auditEventItem, PARTNER_ACTOR } from './audit';
import { dynamoDb, type TransactItem } from './db';
import { getPartner, partnerNotSuspendedItem } from './partners';
import type { RevealState, RevealTombstone } from './reveals';
import { getReveal, revealSpentItem } from './reveals';

export type RevealOutcome =
  | {
      readonly kind: 'ciphertext';
      readonly iv: string;
      readonly ciphertext: string;
      readonly keyPrefix: string;
      readonly partnerId: number;
    }
  | { readonly kind: 'wrong-secret' }
  /** The partner is suspended: nothing was spent. */
  | { readonly kind: 'unknown' }
  | {
      /** A reveal that shows nothing now (or, `unavailable`, while its partner is suspended). */
      readonly kind: Exclude<RevealState, 'ready' | 'unknown'> | 'unavailable';
      readonly keyPrefix: string;
      readonly partnerId: number;
      /** Whether the request held the link's secret: only then is the refusal the partner's event. */
      readonly presentedTheSecret: boolean;
    };

/** Another change to the reveal's keys won every attempt: nothing was spent, and trying again is right. */
export class RevealContentionError extends Error {
  override readonly name = 'RevealContentionError';
}

/** A key's state, seen from its reveal link: what the page says of a key it can no longer reveal. */
function deadKeyState(key: ApiKeyRecord | undefined): RevealTombstone | 'revealed' | 'unknown' {
  if (!key) return 'unknown';
  return key.state === 'superseded' || key.state === 'revoked' ? key.state : 'revealed';
}

/** Constant-time comparison of the proof the browser's digest gives with the stored one. */
function proofMatches(secretDigest: string, stored: string | undefined): boolean {
  const presented = Buffer.from(storedDigestProof(secretDigest));
  return (
    stored !== undefined &&
    presented.length === stored.length &&
    timingSafeEqual(presented, Buffer.from(stored))
  );
}

/** How many times a reveal is tried again when a concurrent change to its keys cancelled it. */
const ATTEMPTS = 3;

/**
 * Spends a key's one-time reveal, in one transaction: the reveal loses its ciphertext, the key
 * becomes active, every key it replaces starts retiring (the rotation's grace period from now,
 * never later than an end it already had), and the reveal is audited. Only a key that is still
 * pending is revealed, and only while its partner is not suspended; nothing is spent otherwise,
 * or when the link's secret does not match. A change that lands in between (a revocation, a
 * second tab) cancels the transaction, and the reveal is read again.
 */
export async function spendReveal(
  revealId: string,
  secretDigest: string,
  nowMs: number,
  requestId?: string,
): Promise<RevealOutcome> {
  for (let attempt = 1; attempt <= ATTEMPTS; attempt += 1) {
    const reveal = await getReveal(revealId, nowMs);
    if (reveal.state === 'unknown') return { kind: 'unknown' };
    const { keyPrefix = '', partnerId = 0, iv = '', ciphertext = '' } = reveal;
    const presentedTheSecret = proofMatches(secretDigest, reveal.secretDigestProof);
    if (reveal.state !== 'ready') return { kind: reveal.state, keyPrefix, partnerId, presentedTheSecret };
    if (!presentedTheSecret) return { kind: 'wrong-secret' };
    const key = await getApiKey(keyPrefix, { consistent: true });
    if (key?.state !== 'pending') {
      const state = deadKeyState(key);
      return state === 'unknown'
        ? { kind: state }
        : { kind: state, keyPrefix, partnerId, presentedTheSecret };
    }
    const partner = await getPartner(partnerId, { consistent: true });
    if (!partner || partner.suspension)
      return { kind: 'unavailable', keyPrefix, partnerId, presentedTheSecret };
    const nowIso = new Date(nowMs).toISOString();
    const retiring = (await getApiKeys(key.retires ?? [])).filter(
      (replaced) => replaced.state === 'active' || replaced.state === 'retiring',
    );
    const items: TransactItem[] = [
      revealSpentItem(revealId, storedDigestProof(secretDigest), nowIso),
      keyRevealedItem(key, nowIso),
      partnerNotSuspendedItem(partnerId),
      ...retiring.map((replaced) =>
        keyRetiringItem(replaced, retirementAt(replaced, nowMs, key.graceMs ?? 0)),
      ),
      auditEventItem({
        at: nowIso,
        actor: PARTNER_ACTOR,
        action: 'key.revealed',
        partnerId,
        keyPrefix,
        ...(retiring.length > 0
          ? { details: { retiring: retiring.map((replaced) => replaced.prefix) } }
          : {}),
        ...(requestId ? { requestId } : {}),
      }),
    ];
    try {
      await dynamoDb().send(new TransactWriteCommand({ TransactItems: items }));
      return { kind: 'ciphertext', iv, ciphertext, keyPrefix, partnerId };
    } catch (error) {
      if (!transactionCancellationCodes(error)) throw error;
    }
  }
  throw new RevealContentionError('The reveal was cancelled by concurrent changes on every attempt');
}
