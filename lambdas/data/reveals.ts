import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { REVEAL_PARTITION } from '../../core/partitions';
import { dynamoDb, type TransactItem, tableName, ttlEpochSeconds } from './db';

/** How long a reveal link works before it must be reissued by rotating the key. */
export const REVEAL_LIFETIME_MS = 7 * 24 * 3_600_000;

/** Why a reveal that was never spent can no longer be: its key was replaced or revoked. */
export type RevealTombstone = 'superseded' | 'revoked';

export interface RevealRecord {
  readonly revealId: string;
  readonly partnerId: number;
  readonly partnerName: string;
  /**
   * SHA-256 of the digest the page presents (itself the SHA-256 of the fragment secret): lets the
   * page refuse a truncated or altered link before the one-time ciphertext is spent, without the
   * server ever learning the secret, and without storing what a request must present.
   */
  readonly secretDigestProof: string;
  readonly keyPrefix: string;
  readonly iv: string;
  readonly ciphertext: string;
  readonly createdAt: string;
  readonly expiresAt: string;
  /** Where the key works: the page shows it beside the key. */
  readonly apiBaseUrl: string;
}

const revealKey = (revealId: string) => ({ PK: `${REVEAL_PARTITION}${revealId}`, SK: 'REVEAL' });

export function revealCreationItem(reveal: RevealRecord): TransactItem {
  return {
    Put: {
      TableName: tableName(),
      // The record outlives the link by a week so a late second visit still gets a clear answer.
      // Nothing but this page reads it: when TTL deletes it, no key's standing changes.
      Item: {
        ...revealKey(reveal.revealId),
        ...reveal,
        ttl: ttlEpochSeconds(Date.parse(reveal.expiresAt) + REVEAL_LIFETIME_MS),
      },
      ConditionExpression: 'attribute_not_exists(PK)',
    },
  };
}

export type RevealState = 'ready' | 'revealed' | 'expired' | RevealTombstone | 'unknown';

/** A reveal as stored: its ciphertext only while it can still be spent. */
export interface StoredReveal {
  readonly state: RevealState;
  readonly keyPrefix?: string;
  readonly partnerId?: number;
  readonly partnerName?: string;
  readonly secretDigestProof?: string;
  readonly iv?: string;
  readonly ciphertext?: string;
  readonly apiBaseUrl?: string;
}

function stateOf(item: Record<string, unknown>, nowMs: number): RevealState {
  if (item.tombstone === 'superseded' || item.tombstone === 'revoked') return item.tombstone;
  if (typeof item.revealedAt === 'string') return 'revealed';
  if (Date.parse(String(item.expiresAt)) <= nowMs) return 'expired';
  return typeof item.ciphertext === 'string' ? 'ready' : 'unknown';
}

export async function getReveal(revealId: string, nowMs: number): Promise<StoredReveal> {
  const { Item } = await dynamoDb().send(
    new GetCommand({ TableName: tableName(), Key: revealKey(revealId), ConsistentRead: true }),
  );
  if (!Item) return { state: 'unknown' };
  const text = (name: string) => (typeof Item[name] === 'string' ? { [name]: Item[name] as string } : {});
  return {
    state: stateOf(Item, nowMs),
    partnerId: Number(Item.partnerId),
    ...text('keyPrefix'),
    ...text('partnerName'),
    ...text('secretDigestProof'),
    ...text('iv'),
    ...text('ciphertext'),
    ...text('apiBaseUrl'),
  };
}

/**
 * Transaction item spending a reveal: the ciphertext is removed, so two clicks or two tabs can
 * never both be given it, and only while the link lives and the proof matches.
 */
export function revealSpentItem(revealId: string, proof: string, nowIso: string): TransactItem {
  return {
    Update: {
      TableName: tableName(),
      Key: revealKey(revealId),
      UpdateExpression: 'REMOVE ciphertext, iv SET revealedAt = :now',
      ConditionExpression: 'attribute_exists(ciphertext) AND expiresAt > :now AND secretDigestProof = :proof',
      ExpressionAttributeValues: { ':now': nowIso, ':proof': proof },
    },
  };
}

/**
 * Transaction item that kills a reveal nobody spent, with the reason its page gives: it goes with
 * the change to its key (superseded, revoked), so a dead key's link never shows the key.
 */
export function revealTombstoneItem(revealId: string, reason: RevealTombstone, nowIso: string): TransactItem {
  return {
    Update: {
      TableName: tableName(),
      Key: revealKey(revealId),
      UpdateExpression: 'REMOVE ciphertext, iv SET tombstone = :reason, tombstonedAt = :now',
      ConditionExpression: 'attribute_exists(ciphertext)',
      ExpressionAttributeValues: { ':reason': reason, ':now': nowIso },
    },
  };
}
