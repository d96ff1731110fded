import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { normalizeEmail } from '../../core/domain/email';
import { HOST_EMAIL_PARTITION, HOST_PARTITION } from '../../core/partitions';
import { dynamoDb, type TransactItem, tableName } from './db';

export interface HostAccount {
  readonly id: number;
  /** As the host first gave it; lookups use the lower-cased form. */
  readonly email: string;
  readonly name: string;
  readonly createdAt: string;
}

const hostKey = (hostId: number) => ({ PK: `${HOST_PARTITION}${hostId}`, SK: 'HOST' });
const hostEmailKey = (email: string) => ({
  PK: `${HOST_EMAIL_PARTITION}${normalizeEmail(email)}`,
  SK: 'HOSTEMAIL',
});

/** Id of the host account holding an e-mail address (any letter case), strongly consistent. */
export async function getHostIdByEmail(email: string): Promise<number | undefined> {
  const { Item } = await dynamoDb().send(
    new GetCommand({ TableName: tableName(), Key: hostEmailKey(email), ConsistentRead: true }),
  );
  return Item ? Number(Item.hostId) : undefined;
}

export async function getHost(hostId: number): Promise<HostAccount | undefined> {
  const { Item } = await dynamoDb().send(new GetCommand({ TableName: tableName(), Key: hostKey(hostId) }));
  return Item
    ? {
        id: Number(Item.id),
        email: String(Item.email),
        name: String(Item.name),
        createdAt: String(Item.createdAt),
      }
    : undefined;
}

/** A new account and its claim on the e-mail address: the claim makes e-mails unique. */
export function hostCreationItems(host: HostAccount): TransactItem[] {
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
        Item: { ...hostKey(host.id), ...host },
        ConditionExpression: 'attribute_not_exists(PK)',
      },
    },
  ];
}

/** Asserts, inside a transaction, that an e-mail still belongs to an existing account. */
export function hostEmailCheckItem(email: string, hostId: number): TransactItem {
  return {
    ConditionCheck: {
      TableName: tableName(),
      Key: hostEmailKey(email),
      ConditionExpression: 'hostId = :hostId',
      ExpressionAttributeValues: { ':hostId': hostId },
    },
  };
}
