import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { storedDigestProof } from '../../contract/reveal-crypto';
import { isConditionFailure } from '../common/aws-errors';
import { documentClient, TABLE_NAME, type TransactItem, ttlEpochSeconds } from './db';
import { REVEAL_PARTITION } from './partitions';

/** How long a reveal link works before it must be reissued by rotating the key. */
export const REVEAL_LIFETIME_MS = 7 * 24 * 3_600_000;

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
}

const revealKey = (revealId: string) => ({ PK: `${REVEAL_PARTITION}${revealId}`, SK: 'REVEAL' });

export function revealCreationItem(reveal: RevealRecord): TransactItem {
  return {
    Put: {
      TableName: TABLE_NAME,
      // The tombstone outlives the link by a week so a late second visit still gets a clear answer.
      Item: {
        ...revealKey(reveal.revealId),
        ...reveal,
        ttl: ttlEpochSeconds(Date.parse(reveal.expiresAt) + REVEAL_LIFETIME_MS),
      },
      ConditionExpression: 'attribute_not_exists(PK)',
    },
  };
}

export type RevealState = 'ready' | 'revealed' | 'expired' | 'unknown';

function stateOf(item: Record<string, unknown> | undefined, nowMs: number): RevealState {
  if (!item) return 'unknown';
  if (typeof item.revealedAt === 'string') return 'revealed';
  if (Date.parse(String(item.expiresAt)) <= nowMs) return 'expired';
  return 'ready';
}

export async function getRevealState(
  revealId: string,
  nowMs: number,
): Promise<{ state: RevealState; keyPrefix?: string; partnerName?: string }> {
  const { Item } = await documentClient.send(
    new GetCommand({ TableName: TABLE_NAME, Key: revealKey(revealId) }),
  );
  return { state: stateOf(Item, nowMs), keyPrefix: Item?.keyPrefix, partnerName: Item?.partnerName };
}

/** When each reveal was revealed (absent: not yet, or no such reveal). */
export async function revealTimes(revealIds: readonly string[]): Promise<Map<string, string>> {
  const times = new Map<string, string>();
  await Promise.all(
    [...new Set(revealIds)].map(async (revealId) => {
      const { Item } = await documentClient.send(
        new GetCommand({
          TableName: TABLE_NAME,
          Key: revealKey(revealId),
          ProjectionExpression: 'revealedAt',
        }),
      );
      if (typeof Item?.revealedAt === 'string') times.set(revealId, Item.revealedAt);
    }),
  );
  return times;
}

export type RevealOutcome =
  | {
      readonly kind: 'ciphertext';
      readonly iv: string;
      readonly ciphertext: string;
      readonly keyPrefix: string;
      readonly partnerId: number;
    }
  | { readonly kind: 'wrong-secret' }
  | { readonly kind: RevealState };

/**
 * The one reveal: removes the ciphertext and returns it, atomically, so two clicks or two tabs
 * can never both receive it. Nothing is spent when the link's secret does not match.
 */
export async function takeReveal(
  revealId: string,
  secretDigest: string,
  nowMs: number,
): Promise<RevealOutcome> {
  try {
    const { Attributes } = await documentClient.send(
      new UpdateCommand({
        TableName: TABLE_NAME,
        Key: revealKey(revealId),
        UpdateExpression: 'REMOVE ciphertext, iv SET revealedAt = :now',
        ConditionExpression:
          'attribute_exists(ciphertext) AND expiresAt > :now AND secretDigestProof = :proof',
        ExpressionAttributeValues: {
          ':now': new Date(nowMs).toISOString(),
          ':proof': storedDigestProof(secretDigest),
        },
        ReturnValues: 'ALL_OLD',
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
    return {
      kind: 'ciphertext',
      iv: String(Attributes?.iv),
      ciphertext: String(Attributes?.ciphertext),
      keyPrefix: String(Attributes?.keyPrefix),
      partnerId: Number(Attributes?.partnerId),
    };
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
    const stored = (error as Error & { Item?: Parameters<typeof unmarshall>[0] }).Item;
    const item = stored ? unmarshall(stored) : undefined;
    const state = stateOf(item, nowMs);
    return state === 'ready' ? { kind: 'wrong-secret' } : { kind: state };
  }
}
