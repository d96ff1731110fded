import { GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { isConditionFailure } from '../common/aws-errors';
import type { Scope } from '../domain/scopes';
import { isScope } from '../domain/scopes';
import { documentClient, GSI1, TABLE_NAME, type TransactItem } from './db';
import { API_KEY_PARTITION, partnerPartition } from './partitions';

/**
 * A key issued to replace this one by a rotation: this key retires `graceMs` after that key's
 * one-time reveal (not before: a replacement nobody revealed retires nothing).
 */
export interface KeyReplacement {
  readonly keyPrefix: string;
  readonly revealId: string;
  readonly graceMs: number;
}

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
  /** The one-time reveal that delivers this key (keys made before reveals were recorded have none). */
  readonly revealId?: string;
  /** Rotations that replace this key, oldest first. */
  readonly replacements?: readonly KeyReplacement[];
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

function toReplacements(value: unknown): KeyReplacement[] | undefined {
  if (!Array.isArray(value)) return undefined;
  return value.flatMap((entry: Record<string, unknown>) =>
    typeof entry?.keyPrefix === 'string' &&
    typeof entry.revealId === 'string' &&
    typeof entry.graceMs === 'number'
      ? [{ keyPrefix: entry.keyPrefix, revealId: entry.revealId, graceMs: entry.graceMs }]
      : [],
  );
}

function toApiKeyRecord(item: Record<string, unknown> | undefined): ApiKeyRecord | undefined {
  if (!item || !(item.digest instanceof Uint8Array)) return undefined;
  const replacements = toReplacements(item.replacements);
  return {
    prefix: String(item.prefix),
    partnerId: Number(item.partnerId),
    digest: item.digest,
    scopes: Array.isArray(item.scopes) ? item.scopes.filter(isScope) : [],
    createdAt: String(item.createdAt),
    expiresAt: typeof item.expiresAt === 'string' ? item.expiresAt : undefined,
    revokedAt: typeof item.revokedAt === 'string' ? item.revokedAt : undefined,
    usageIdentifierKey: typeof item.usageIdentifierKey === 'string' ? item.usageIdentifierKey : undefined,
    ...(typeof item.revealId === 'string' ? { revealId: item.revealId } : {}),
    ...(replacements && replacements.length > 0 ? { replacements } : {}),
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
 * Transaction item recording a rotation's new key on a key it replaces, while that key is not
 * revoked: the replaced key retires the grace period after the new key is revealed.
 */
export function apiKeyReplacementItem(prefix: string, replacement: KeyReplacement): TransactItem {
  return {
    Update: {
      TableName: TABLE_NAME,
      Key: apiKeyKey(prefix),
      UpdateExpression: 'SET replacements = list_append(if_not_exists(replacements, :none), :replacement)',
      ConditionExpression: 'attribute_exists(PK) AND attribute_not_exists(revokedAt)',
      ExpressionAttributeValues: { ':none': [], ':replacement': [replacement] },
    },
  };
}

/** Transaction item revoking a key (a rotation supersedes keys that were never revealed). */
export function apiKeyRevocationItem(prefix: string, nowIso: string): TransactItem {
  return {
    Update: {
      TableName: TABLE_NAME,
      Key: apiKeyKey(prefix),
      UpdateExpression: 'SET revokedAt = if_not_exists(revokedAt, :now)',
      ConditionExpression: 'attribute_exists(PK)',
      ExpressionAttributeValues: { ':now': nowIso },
    },
  };
}

/**
 * Transaction item narrowing a key's scopes to its partner's new agreement (the authorizer reads
 * scopes from the key record, so the change is in effect as a revocation is).
 */
export function apiKeyScopesItem(prefix: string, scopes: readonly Scope[]): TransactItem {
  return {
    Update: {
      TableName: TABLE_NAME,
      Key: apiKeyKey(prefix),
      UpdateExpression: 'SET scopes = :scopes',
      ConditionExpression: 'attribute_exists(PK)',
      ExpressionAttributeValues: { ':scopes': [...scopes] },
    },
  };
}
