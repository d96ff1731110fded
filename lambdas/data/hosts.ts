import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { normalizeEmail } from '../../core/domain/email';
import { HOST_EMAIL_PARTITION, HOST_PARTITION } from '../../core/partitions';
import { isConditionFailure } from '../common/aws-errors';
import { dynamoDb, type TransactItem, tableName } from './db';

export interface HostAccount {
  readonly id: number;
  /** As the host first gave it; lookups use the lower-cased form. */
  readonly email: string;
  readonly name: string;
  readonly createdAt: string;
}

/**
 * The host's account (`HOST#<id>`): its contact e-mail and name, and the partners and properties
 * provisioning gave it, which an erasure follows (docs/design/events.md#erasure). An erased host
 * keeps only a tombstone: its id, those ids and when it was erased.
 */
const hostKey = (hostId: number) => ({ PK: `${HOST_PARTITION}${hostId}`, SK: 'HOST' });
/** The claim on an e-mail address; links issued for the address sit in the same partition. */
const hostEmailPartition = (email: string) => `${HOST_EMAIL_PARTITION}${normalizeEmail(email)}`;
const hostEmailKey = (email: string) => ({ PK: hostEmailPartition(email), SK: 'HOSTEMAIL' });

/** Id of the host account holding an e-mail address (any letter case), strongly consistent. */
export async function getHostIdByEmail(email: string): Promise<number | undefined> {
  const { Item } = await dynamoDb().send(
    new GetCommand({ TableName: tableName(), Key: hostEmailKey(email), ConsistentRead: true }),
  );
  return Item ? Number(Item.hostId) : undefined;
}

/** The host's account as stored, strongly consistent: what provisioning gave it, or its tombstone. */
export interface HostRecord {
  readonly id: number;
  readonly account?: HostAccount;
  readonly sponsors: readonly number[];
  readonly propertyIds: readonly number[];
  readonly erasedAt?: string;
  /** When the erased host asked to be forgotten (the request's `requested_at`). */
  readonly erasureRequestedAt?: string;
}

const numbers = (value: unknown) =>
  value instanceof Set ? [...value].map(Number).sort((a, b) => a - b) : [];

export async function getHostRecord(hostId: number): Promise<HostRecord | undefined> {
  const { Item } = await dynamoDb().send(
    new GetCommand({ TableName: tableName(), Key: hostKey(hostId), ConsistentRead: true }),
  );
  if (!Item) return undefined;
  const erased = typeof Item.erasedAt === 'string';
  return {
    id: Number(Item.id),
    ...(erased
      ? {
          erasedAt: String(Item.erasedAt),
          ...(typeof Item.erasureRequestedAt === 'string'
            ? { erasureRequestedAt: Item.erasureRequestedAt }
            : {}),
        }
      : {
          account: {
            id: Number(Item.id),
            email: String(Item.email),
            name: String(Item.name),
            createdAt: String(Item.createdAt),
          },
        }),
    sponsors: numbers(Item.sponsors),
    propertyIds: numbers(Item.propertyIds),
  };
}

export async function getHost(hostId: number): Promise<HostAccount | undefined> {
  return (await getHostRecord(hostId))?.account;
}

/** Whether a host id is an account, an erased one, or none. */
export async function getHostStanding(hostId: number): Promise<'active' | 'erased' | 'unknown'> {
  const record = await getHostRecord(hostId);
  return record ? (record.erasedAt ? 'erased' : 'active') : 'unknown';
}

/**
 * A new account, sponsored by a partner for a property, and its claim on the e-mail address: the
 * claim makes e-mails unique.
 */
export function hostCreationItems(
  host: HostAccount,
  sponsorship: { partnerId: number; propertyId: number },
): TransactItem[] {
  return [
    {
      Put: {
        TableName: tableName(),
        Item: { ...hostEmailKey(host.email), hostId: host.id },
        ConditionExpression: 'attribute_not_exists(PK)',
      },
    },
    {
      Put: {
        TableName: tableName(),
        Item: {
          ...hostKey(host.id),
          ...host,
          sponsors: new Set([sponsorship.partnerId]),
          propertyIds: new Set([sponsorship.propertyId]),
        },
        ConditionExpression: 'attribute_not_exists(PK)',
      },
    },
  ];
}

/**
 * Links an existing account to a partner and a property, inside a transaction: the e-mail must
 * still belong to the account, and the account must not be erased.
 */
export function hostSponsoredItems(
  email: string,
  hostId: number,
  sponsorship: { partnerId: number; propertyId: number },
): TransactItem[] {
  return [
    {
      ConditionCheck: {
        TableName: tableName(),
        Key: hostEmailKey(email),
        ConditionExpression: 'hostId = :hostId',
        ExpressionAttributeValues: { ':hostId': hostId },
      },
    },
    {
      Update: {
        TableName: tableName(),
        Key: hostKey(hostId),
        UpdateExpression: 'ADD sponsors :partner, propertyIds :property',
        ConditionExpression: 'attribute_exists(PK) AND attribute_not_exists(erasedAt)',
        ExpressionAttributeValues: {
          ':partner': new Set([sponsorship.partnerId]),
          ':property': new Set([sponsorship.propertyId]),
        },
      },
    },
  ];
}

/**
 * The erasure's decisive writes: the account becomes a tombstone (its id, the ids it links and
 * when; no e-mail address, no name) and its e-mail claim is deleted, so a new activation link for
 * the address creates a new account. The ids stay as they are stored: a provisioning that added
 * one since it was read is found again when the erasure reads the tombstone.
 */
export function hostErasureItems(account: HostAccount, requestedAt: string, nowIso: string): TransactItem[] {
  return [
    {
      Update: {
        TableName: tableName(),
        Key: hostKey(account.id),
        UpdateExpression:
          'SET erasedAt = :now, erasureRequestedAt = :requested REMOVE email, #name, createdAt',
        ConditionExpression: 'attribute_exists(PK) AND attribute_not_exists(erasedAt)',
        ExpressionAttributeNames: { '#name': 'name' },
        ExpressionAttributeValues: { ':now': nowIso, ':requested': requestedAt },
      },
    },
    {
      Delete: {
        TableName: tableName(),
        Key: hostEmailKey(account.email),
        ConditionExpression: 'attribute_not_exists(PK) OR hostId = :hostId',
        ExpressionAttributeValues: { ':hostId': account.id },
      },
    },
  ];
}

/**
 * The erasure's last write: the tombstone records that `HostErased` was sent (in the same
 * transaction as its outbox item), so a delivery of the request after the first sends none again.
 */
export function hostErasureAnnouncedItem(hostId: number, nowIso: string): TransactItem {
  return {
    Update: {
      TableName: tableName(),
      Key: hostKey(hostId),
      UpdateExpression: 'SET erasureAnnouncedAt = :now',
      ConditionExpression: 'attribute_exists(erasedAt) AND attribute_not_exists(erasureAnnouncedAt)',
      ExpressionAttributeValues: { ':now': nowIso },
    },
  };
}

/**
 * The first step of an erasure: while the account's address is claimed and marked, no link can be
 * issued for it (`noErasureOfEmailItem`), so none escapes the erasure's sweep of the links. Nothing
 * to mark when the claim is gone or another account's.
 */
export async function markEmailClaimErasing(email: string, hostId: number, nowIso: string): Promise<void> {
  try {
    await dynamoDb().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: hostEmailKey(email),
        UpdateExpression: 'SET erasingSince = if_not_exists(erasingSince, :now)',
        ConditionExpression: 'hostId = :hostId',
        ExpressionAttributeValues: { ':now': nowIso, ':hostId': hostId },
      }),
    );
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
  }
}

/** Inside a transaction: the account that holds the address (if any) is not being erased. */
/** Whether the account of this address is being erased (a link for it would be refused now). */
export async function isEmailBeingErased(email: string): Promise<boolean> {
  const { Item } = await dynamoDb().send(
    new GetCommand({ TableName: tableName(), Key: hostEmailKey(email), ConsistentRead: true }),
  );
  return typeof Item?.erasingSince === 'string';
}

export function noErasureOfEmailItem(email: string): TransactItem {
  return {
    ConditionCheck: {
      TableName: tableName(),
      Key: hostEmailKey(email),
      ConditionExpression: 'attribute_not_exists(erasingSince)',
    },
  };
}

/** Where the links issued for an e-mail address are listed (the erasure ends the unused ones). */
export const issuedLinksOfEmailPartition = hostEmailPartition;
