import type { ScanCommandInput } from '@aws-sdk/lib-dynamodb';
import { DeleteCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { dynamoDb, tableName } from '../../lambdas/data/db';

/*
 * Every item of a table that a scan matches, page after page, read consistently. One Scan answers
 * at most 1 MB (and a filter applies after that limit), so a test that reads a single page sees
 * less the longer the suite runs:
 * https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Scan.html#Scan.Pagination
 */
export async function scanAll(
  input: Omit<ScanCommandInput, 'TableName' | 'ExclusiveStartKey'> & { TableName?: string } = {},
): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const page = await dynamoDb().send(
      new ScanCommand({ ConsistentRead: true, TableName: tableName(), ...input, ExclusiveStartKey }),
    );
    items.push(...(page.Items ?? []));
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  return items;
}

/**
 * DynamoDB's TTL at its most eager: deletes every item of the table whose `ttl` (epoch seconds)
 * has passed at `nowMs`. AWS deletes such items at some time after, never before:
 * https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/howitworks-ttl.html
 */
export async function sweepExpired(table: string, nowMs: number): Promise<number> {
  const expired = await scanAll({
    TableName: table,
    FilterExpression: '#ttl <= :now',
    ExpressionAttributeNames: { '#ttl': 'ttl' },
    ExpressionAttributeValues: { ':now': Math.floor(nowMs / 1000) },
    ProjectionExpression: 'PK, SK',
  });
  for (const item of expired)
    await dynamoDb().send(new DeleteCommand({ TableName: table, Key: { PK: item.PK, SK: item.SK } }));
  return expired.length;
}
