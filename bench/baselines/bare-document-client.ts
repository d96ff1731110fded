import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';

/**
 * Load-time baseline: a DynamoDB DocumentClient created at load and one GetCommand per call,
 * and nothing else. The budget is what the real functions add on top of this.
 */
const client = DynamoDBDocumentClient.from(new DynamoDBClient({}));

export const handler = async (event: { id?: string }): Promise<unknown> => {
  const { Item } = await client.send(
    new GetCommand({ TableName: process.env.TABLE_NAME, Key: { PK: event.id ?? 'x', SK: 'x' } }),
  );
  return Item ?? null;
};
