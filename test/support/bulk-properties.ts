import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import { dynamoDb, tableName } from '../../lambdas/data/db';
import { propertyCreationItems } from '../../lambdas/data/properties';

/**
 * Gives a partner `count` properties with the ids `firstId` upwards, written straight to the
 * table in batches (as a partner with many activations would have them), and returns the ids.
 */
export async function bulkProperties(partnerId: number, firstId: number, count: number): Promise<number[]> {
  const ids = Array.from({ length: count }, (_, index) => firstId + index);
  const puts = ids.flatMap((id) =>
    propertyCreationItems({
      id,
      partnerId,
      hostUserId: 1,
      name: `Holiday apartment number ${id}`,
      units: 1,
      pmsHotelId: `BULK-${id}`,
      createdAt: new Date().toISOString(),
    }),
  );
  for (let start = 0; start < puts.length; start += 25) {
    let requests = puts
      .slice(start, start + 25)
      .map((item) => ({ PutRequest: { Item: item.Put?.Item ?? {} } }));
    // DynamoDB may leave some unprocessed under load: write them again until none is left.
    while (requests.length > 0) {
      const { UnprocessedItems } = await dynamoDb().send(
        new BatchWriteCommand({ RequestItems: { [tableName()]: requests } }),
      );
      requests = (UnprocessedItems?.[tableName()] ?? []) as typeof requests;
    }
  }
  return ids;
}
