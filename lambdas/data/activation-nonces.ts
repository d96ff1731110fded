import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { ProductId } from '../../core/domain/catalog';
import { isProductId } from '../../core/domain/catalog';
import { NONCE_PARTITION } from '../../core/partitions';
import { dynamoDb, type TransactItem, tableName, ttlEpochSeconds } from './db';

/** What an activation link provisioned; stored under its nonce when the link is used. */
export interface ConsumedNonce {
  readonly partnerId: number;
  readonly nonce: string;
  readonly hostUserId: number;
  readonly propertyId: number;
  readonly activatedProductIds: readonly ProductId[];
  readonly consumedAt: string;
  /**
   * The host session that used the link: only it may go on to the wizard. Absent when no browser
   * session provisioned (an operator's or a test's provisioning).
   */
  readonly sessionId?: string;
  /**
   * Set when the link was ended unused, because its host was erased: it provisions nothing, and
   * names no host or property (docs/design/events.md#erasure).
   */
  readonly withdrawn?: boolean;
}

const nonceKey = (partnerId: number, nonce: string) => ({
  PK: `${NONCE_PARTITION}${partnerId}#${nonce}`,
  SK: 'NONCE',
});

/** Marks a link used; it fails the transaction if the link was used before. */
export function nonceConsumptionItem(consumed: ConsumedNonce, tokenExpiresAtMs: number): TransactItem {
  return {
    Put: {
      TableName: tableName(),
      // Kept a day past the token's expiry: after that the expiry check refuses the token anyway.
      Item: {
        ...nonceKey(consumed.partnerId, consumed.nonce),
        ...consumed,
        ttl: ttlEpochSeconds(tokenExpiresAtMs + 86_400_000),
      },
      ConditionExpression: 'attribute_not_exists(PK)',
    },
  };
}

/**
 * Ends a link that was not used yet, because its host was erased: afterwards it works as a used
 * link, which tells the host to ask the partner for a fresh one. A link already used stays as it
 * is (the condition fails, and is to be ignored).
 */
export function nonceWithdrawalItem(
  partnerId: number,
  nonce: string,
  linkExpiresAt: string,
  nowIso: string,
): TransactItem {
  return {
    Put: {
      TableName: tableName(),
      Item: {
        ...nonceKey(partnerId, nonce),
        partnerId,
        nonce,
        withdrawn: true,
        consumedAt: nowIso,
        ttl: ttlEpochSeconds(Date.parse(linkExpiresAt) + 86_400_000),
      },
      ConditionExpression: 'attribute_not_exists(PK)',
    },
  };
}

export async function getConsumedNonce(partnerId: number, nonce: string): Promise<ConsumedNonce | undefined> {
  const { Item } = await dynamoDb().send(
    new GetCommand({ TableName: tableName(), Key: nonceKey(partnerId, nonce), ConsistentRead: true }),
  );
  if (!Item) return undefined;
  return {
    partnerId: Number(Item.partnerId),
    nonce: String(Item.nonce),
    hostUserId: Number(Item.hostUserId),
    propertyId: Number(Item.propertyId),
    activatedProductIds: Array.isArray(Item.activatedProductIds)
      ? Item.activatedProductIds.filter(isProductId)
      : [],
    consumedAt: String(Item.consumedAt),
    ...(typeof Item.sessionId === 'string' ? { sessionId: Item.sessionId } : {}),
    ...(Item.withdrawn === true ? { withdrawn: true } : {}),
  };
}
