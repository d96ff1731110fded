import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { normalizeEmail } from '../domain/email';
import { documentClient, TABLE_NAME, type TransactItem } from './db';
import { HOST_EMAIL_PARTITION, HOST_PARTITION } from './partitions';

export interface HostAccount {
  readonly id: number;
  /** As the host first gave it; lookups use the lower-cased form. */
  readonly email: string;
  readonly name: string;
  readonly createdAt: string;
}

export const hostKey = (hostId: number) => ({ PK: `${HOST_PARTITION}${hostId}`, SK: 'HOST' });
const hostEmailKey = (email: string) => ({
  PK: `${HOST_EMAIL_PARTITION}${normalizeEmail(email)}`,
  SK: 'HOSTEMAIL',
});

/** Id of the host account holding an e-mail address (any letter case), strongly consistent. */
export async function getHostIdByEmail(email: string): Promise<number | undefined> {
  const { Item } = await documentClient.send(
    new GetCommand({ TableName: TABLE_NAME, Key: hostEmailKey(email), ConsistentRead: true }),
  );
  return Item ? Number(Item.hostId) : undefined;
}

export async function getHost(hostId: number): Promise<HostAccount | undefined> {
  const { Item } = await documentClient.send(new GetCommand({ TableName: TABLE_NAME, Key: hostKey(hostId) }));
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
        TableName: TABLE_NAME,
        Item: { ...hostEmailKey(host.email), hostId: host.id },
        ConditionExpression: 'attribute_not_exists(PK)',
      },
    },
    {
      Put: {
        TableName: TABLE_NAME,
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
      TableName: TABLE_NAME,
      Key: hostEmailKey(email),
      ConditionExpression: 'hostId = :hostId',
      ExpressionAttributeValues: { ':hostId': hostId },
    },
  };
}
