import type { AttributeValue, ScanCommandInput as RawScanInput } from '@aws-sdk/client-dynamodb';
import { ScanCommand } from '@aws-sdk/client-dynamodb';
import { DeleteCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { dynamoDb, tableName } from '../../lambdas/data/db';

/*
 * Every item of a table that a scan matches, page after page, read consistently. One Scan answers
 * at most 1 MB (and a filter applies after that limit), so a test that reads a single page sees
 * less the longer the suite runs:
 * https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Scan.html#Scan.Pagination
 */
export async function scanAll(
  input: Omit<RawScanInput, 'TableName' | 'ExclusiveStartKey'> & { TableName?: string } = {},
): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let ExclusiveStartKey: Record<string, AttributeValue> | undefined;
  do {
    const page = await dynamoDb().send(
      new ScanCommand({ ConsistentRead: true, TableName: tableName(), ...input, ExclusiveStartKey }),
    );
    items.push(...(page.Items ?? []).map((item) => unmarshall(item, { wrapNumbers: numberOrText })));
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  return items;
}

/**
 * A stored number as JavaScript holds it, or its text when it cannot be held exactly: a test may
 * store numbers no step writes (the knowledge base's odd values), and a scan of the whole table
 * must still read them.
 */
function numberOrText(value: string): number | string {
  const number = Number(value);
  return Number.isFinite(number) && (Number.isSafeInteger(number) || !/^-?\d{16,}/.test(value))
    ? number
    : value;
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
    ExpressionAttributeValues: { ':now': { N: String(Math.floor(nowMs / 1000)) } },
    ProjectionExpression: 'PK, SK',
  });
  for (const item of expired)
    await dynamoDb().send(new DeleteCommand({ TableName: table, Key: { PK: item.PK, SK: item.SK } }));
  return expired.length;
}
