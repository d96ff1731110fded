import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { COUNTER_PARTITION } from '../../core/partitions';
import { dynamoDb, tableName } from './db';

export type CounterName = 'partner' | 'host' | 'property';

const counterKey = (name: CounterName) => ({ PK: `${COUNTER_PARTITION}${name}`, SK: 'COUNTER' });

/** Next integer id of an entity, from an atomic counter (ids may skip after a failed write). */
export async function allocateId(name: CounterName): Promise<number> {
  const { Attributes } = await dynamoDb().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: counterKey(name),
      UpdateExpression: 'ADD lastId :one',
      ExpressionAttributeValues: { ':one': 1 },
      ReturnValues: 'UPDATED_NEW',
    }),
  );
  return Number(Attributes?.lastId);
}

/** The highest id the counter gave out so far (0 before the first): every id of its entity is at most this. */
export async function lastAllocatedId(name: CounterName): Promise<number> {
  const { Item } = await dynamoDb().send(
    new GetCommand({ TableName: tableName(), Key: counterKey(name), ConsistentRead: true }),
  );
  return Number(Item?.lastId ?? 0);
}
