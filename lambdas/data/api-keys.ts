import { GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Scope } from '../domain/scopes';
import { isScope } from '../domain/scopes';
import { isConditionFailure } from '../shared/aws-errors';
import { documentClient, GSI1, TABLE_NAME, type TransactItem } from './db';
import { API_KEY_PARTITION, partnerPartition } from './partitions';

/** A stored partner key: its prefix and digest, never the key itself. */
export interface ApiKeyRecord {
  readonly prefix: string;
  readonly partnerId: number;
  readonly digest: Uint8Array;
  readonly scopes: readonly Scope[];
  readonly createdAt: string;
  readonly expiresAt?: string;
  readonly revokedAt?: string;
  /** Value of the API Gateway API key that ties this key to the usage plan (deployed stages). */
  readonly usageIdentifierKey?: string;
}

export const apiKeyKey = (prefix: string) => ({ PK: `${API_KEY_PARTITION}${prefix}`, SK: 'APIKEY' });
const partnerKeysIndexKey = (partnerId: number) => `${partnerPartition(partnerId)}#APIKEYS`;

/** Transaction item creating a key; the condition makes prefixes unique. */
export function apiKeyCreationItem(record: ApiKeyRecord): TransactItem {
  return {
    Put: {
      TableName: TABLE_NAME,
      Item: {
        ...apiKeyKey(record.prefix),
        GSI1PK: partnerKeysIndexKey(record.partnerId),
        GSI1SK: `${record.createdAt}#${record.prefix}`,
        ...record,
      },
      ConditionExpression: 'attribute_not_exists(PK)',
    },
  };
}

function toApiKeyRecord(item: Record<string, unknown> | undefined): ApiKeyRecord | undefined {
  if (!item || !(item.digest instanceof Uint8Array)) return undefined;
  return {
    prefix: String(item.prefix),
    partnerId: Number(item.partnerId),
    digest: item.digest,
    scopes: Array.isArray(item.scopes) ? item.scopes.filter(isScope) : [],
    createdAt: String(item.createdAt),
    expiresAt: typeof item.expiresAt === 'string' ? item.expiresAt : undefined,
    revokedAt: typeof item.revokedAt === 'string' ? item.revokedAt : undefined,
    usageIdentifierKey: typeof item.usageIdentifierKey === 'string' ? item.usageIdentifierKey : undefined,
  };
}

/** The authorizer's one read: the key record by its plaintext prefix. */
export async function getApiKey(prefix: string): Promise<ApiKeyRecord | undefined> {
  const { Item } = await documentClient.send(
    new GetCommand({ TableName: TABLE_NAME, Key: apiKeyKey(prefix) }),
  );
  return toApiKeyRecord(Item);
}

/** Keys of a partner, oldest first. */
export async function listApiKeysOfPartner(partnerId: number): Promise<ApiKeyRecord[]> {
  const { Items = [] } = await documentClient.send(
    new QueryCommand({
      TableName: TABLE_NAME,
      IndexName: GSI1,
      KeyConditionExpression: 'GSI1PK = :keys',
      ExpressionAttributeValues: { ':keys': partnerKeysIndexKey(partnerId) },
    }),
  );
  return Items.flatMap((item) => toApiKeyRecord(item) ?? []);
}

/** Revokes a key; revoking twice keeps the first time. Undefined when there is no such key. */
export async function revokeApiKey(prefix: string, nowIso: string): Promise<ApiKeyRecord | undefined> {
  try {
    const { Attributes } = await documentClient.send(
      new UpdateCommand({
        TableName: TABLE_NAME,
        Key: apiKeyKey(prefix),
        UpdateExpression: 'SET revokedAt = if_not_exists(revokedAt, :now)',
        ConditionExpression: 'attribute_exists(PK)',
        ExpressionAttributeValues: { ':now': nowIso },
        ReturnValues: 'ALL_NEW',
      }),
    );
    return toApiKeyRecord(Attributes);
  } catch (error) {
    if (isConditionFailure(error)) return undefined;
    throw error;
  }
}

/**
 * Transaction item giving a key an expiry, never a later one than it already has (a
 * rotation must not extend a key's life), and only while it is not revoked.
 */
export function apiKeyExpiryItem(prefix: string, expiresAt: string): TransactItem {
  return {
    Update: {
      TableName: TABLE_NAME,
      Key: apiKeyKey(prefix),
      UpdateExpression: 'SET expiresAt = :expiresAt',
      ConditionExpression:
        'attribute_exists(PK) AND attribute_not_exists(revokedAt) AND (attribute_not_exists(expiresAt) OR expiresAt > :expiresAt)',
      ExpressionAttributeValues: { ':expiresAt': expiresAt },
    },
  };
}
