import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { StoredKeyState } from '../../core/domain/api-key';
import { isStoredKeyState } from '../../core/domain/api-key';
import type { Scope } from '../../core/domain/scopes';
import { isScope } from '../../core/domain/scopes';
import { API_KEY_PARTITION } from '../../core/partitions';
import { dynamoDb, type TransactItem, tableName } from './db';

/**
 * A stored partner key: its prefix and digest, never the key itself, and its lifecycle state.
 * The state and `expiresAt` are the whole truth about whether the key is in force: they are
 * written in the transaction of the event that decides them, and the item has no TTL.
 */
export interface ApiKeyRecord {
  readonly prefix: string;
  readonly partnerId: number;
  readonly digest: Uint8Array;
  readonly scopes: readonly Scope[];
  readonly createdAt: string;
  /** The partner's revision that issued the key: orders a partner's keys, newest last. */
  readonly sequence: number;
  readonly state: StoredKeyState;
  /** The one-time reveal that delivers this key (none for keys handed over another way: demo keys). */
  readonly revealId?: string;
  readonly revealedAt?: string;
  /** Set when the key starts retiring; only ever moved earlier. */
  readonly expiresAt?: string;
  readonly revokedAt?: string;
  /** Why it was revoked when it was not an operator's own decision: found where it should not be. */
  readonly leak?: KeyLeak;
  /** The key `keys replace` issued in its place (a revoked key is replaced once). */
  readonly replacedBy?: string;
  readonly supersededAt?: string;
  /** A rotation's new key: the keys its reveal retires, after `graceMs`. */
  readonly retires?: readonly string[];
  readonly graceMs?: number;
  /** Value of the API Gateway API key that ties this key to the usage plan (deployed stages). */
  readonly usageIdentifierKey?: string;
}

/** Where a leaked key was found, as its reporter said (a scanner, or an operator for another reporter). */
export interface KeyLeak {
  readonly url: string;
  readonly source: string;
  /** Who reported it: `github-secret-scanning`, or the operator who ran `keys report-leak`. */
  readonly reportedBy: string;
}

const apiKeyKey = (prefix: string) => ({ PK: `${API_KEY_PARTITION}${prefix}`, SK: 'APIKEY' });

/** Transaction item creating a key; the condition makes prefixes unique. */
export function apiKeyCreationItem(record: ApiKeyRecord): TransactItem {
  return {
    Put: {
      TableName: tableName(),
      Item: { ...apiKeyKey(record.prefix), ...record },
      ConditionExpression: 'attribute_not_exists(PK)',
    },
  };
}

const optionalString = (item: Record<string, unknown>, name: string) =>
  typeof item[name] === 'string' ? { [name]: item[name] as string } : {};

function toApiKeyRecord(item: Record<string, unknown> | undefined): ApiKeyRecord | undefined {
  // An item without a state is not a key this code wrote: it opens nothing.
  if (!item || !(item.digest instanceof Uint8Array) || !isStoredKeyState(item.state)) return undefined;
  return {
    prefix: String(item.prefix),
    partnerId: Number(item.partnerId),
    digest: item.digest,
    scopes: Array.isArray(item.scopes) ? item.scopes.filter(isScope) : [],
    createdAt: String(item.createdAt),
    sequence: Number(item.sequence ?? 0),
    state: item.state,
    ...optionalString(item, 'revealId'),
    ...optionalString(item, 'revealedAt'),
    ...optionalString(item, 'expiresAt'),
    ...optionalString(item, 'revokedAt'),
    ...optionalString(item, 'supersededAt'),
    ...optionalString(item, 'usageIdentifierKey'),
    ...optionalString(item, 'replacedBy'),
    ...(Array.isArray(item.retires) ? { retires: item.retires.map(String) } : {}),
    ...(typeof item.graceMs === 'number' ? { graceMs: item.graceMs } : {}),
    ...(typeof item.leakUrl === 'string'
      ? {
          leak: {
            url: item.leakUrl,
            source: String(item.leakSource ?? ''),
            reportedBy: String(item.leakReportedBy ?? ''),
          },
        }
      : {}),
  };
}

/**
 * A key record by its plaintext prefix. The authorizer reads eventually consistent (a change is
 * in effect within its 30-second bound anyway); decisions that write read consistently.
 */
export async function getApiKey(
  prefix: string,
  { consistent = false }: { consistent?: boolean } = {},
): Promise<ApiKeyRecord | undefined> {
  const { Item } = await dynamoDb().send(
    new GetCommand({ TableName: tableName(), Key: apiKeyKey(prefix), ConsistentRead: consistent }),
  );
  return toApiKeyRecord(Item);
}

/** Keys by prefix, read consistently, in the order given; prefixes with no key are left out. */
export async function getApiKeys(prefixes: readonly string[]): Promise<ApiKeyRecord[]> {
  const keys = await Promise.all(prefixes.map((prefix) => getApiKey(prefix, { consistent: true })));
  return keys.flatMap((key) => key ?? []);
}

/**
 * Transaction item moving a key on from the state (and expiry) it was read in: if another change
 * got there first, the transaction is cancelled rather than overwrite it.
 */
function transitionItem(
  key: Pick<ApiKeyRecord, 'prefix' | 'state' | 'expiresAt'>,
  set: Readonly<Record<string, string | readonly string[]>>,
): TransactItem {
  const names = Object.keys(set);
  return {
    Update: {
      TableName: tableName(),
      Key: apiKeyKey(key.prefix),
      UpdateExpression: `SET ${names.map((_name, index) => `#a${index} = :a${index}`).join(', ')}`,
      ConditionExpression: `#state = :from AND ${
        key.expiresAt === undefined ? 'attribute_not_exists(expiresAt)' : 'expiresAt = :expiresAt'
      }`,
      ExpressionAttributeNames: {
        '#state': 'state',
        ...Object.fromEntries(names.map((name, index) => [`#a${index}`, name])),
      },
      ExpressionAttributeValues: {
        ':from': key.state,
        ...(key.expiresAt === undefined ? {} : { ':expiresAt': key.expiresAt }),
        ...Object.fromEntries(names.map((name, index) => [`:a${index}`, set[name]])),
      },
    },
  };
}

type KeyAsRead = Pick<ApiKeyRecord, 'prefix' | 'state' | 'expiresAt'>;

/** Its reveal was spent: the key is in force from now on. */
export const keyRevealedItem = (key: KeyAsRead, nowIso: string) =>
  transitionItem(key, { state: 'active', revealedAt: nowIso });

/** A replacement was revealed: the key works until `expiresAt`. */
export const keyRetiringItem = (key: KeyAsRead, expiresAt: string) =>
  transitionItem(key, { state: 'retiring', expiresAt });

/** Revoked now; with `leak`, because it was found where it should not be (kept with the key). */
export const keyRevokedItem = (key: KeyAsRead, nowIso: string, leak?: KeyLeak) =>
  transitionItem(key, {
    state: 'revoked',
    revokedAt: nowIso,
    ...(leak ? { leakUrl: leak.url, leakSource: leak.source, leakReportedBy: leak.reportedBy } : {}),
  });

/** A newer rotation replaced this key before it was revealed. */
export const keySupersededItem = (key: KeyAsRead, nowIso: string) =>
  transitionItem(key, { state: 'superseded', supersededAt: nowIso });

/** The key's scopes narrowed to its partner's new agreement, whatever its state. */
export const keyScopesItem = (key: KeyAsRead, scopes: readonly Scope[]) =>
  transitionItem(key, { scopes: [...scopes] });

/** A revoked key's replacement, recorded once: a second `keys replace` of it is cancelled. */
export function keyReplacedItem(key: Pick<ApiKeyRecord, 'prefix'>, replacement: string): TransactItem {
  return {
    Update: {
      TableName: tableName(),
      Key: apiKeyKey(key.prefix),
      UpdateExpression: 'SET replacedBy = :replacement',
      ConditionExpression: '#state = :revoked AND attribute_not_exists(replacedBy)',
      ExpressionAttributeNames: { '#state': 'state' },
      ExpressionAttributeValues: { ':revoked': 'revoked', ':replacement': replacement },
    },
  };
}
