import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import { dynamoDb, tableName } from '../lambdas/data/db';
import { propertyCreationItems } from '../lambdas/data/properties';

/**
 * The properties the deploy verification writes straight into the table for its test partner,
 * and deletes again at its clean-up: one for the index check before any activation, and a bulk
 * big enough that the list's JSON crosses the compression threshold.
 */

const BULK_PROPERTY_NAME_LENGTH = 100;
export const BULK_PROPERTIES = 2_400;

/** The keys of the items written, to delete them. */
export type ItemKey = Record<string, string>;

/** Writes `count` properties of the test partner, ids from `firstIndex` on. */
export async function addProperties(
  partnerId: number,
  count: number,
  firstIndex: number,
): Promise<{ ids: number[]; keys: ItemKey[] }> {
  const ids = Array.from(
    { length: count },
    // Far above any id the counter gives out, and within sortableId's 12 digits.
    (_, index) => 800_000_000_000 + (partnerId % 10_000) * 10_000 + firstIndex + index,
  );
  const items = ids
    .flatMap((id, index) =>
      propertyCreationItems({
        id,
        partnerId,
        hostUserId: 0,
        name: `Deploy verification property ${firstIndex + index} (test data) `.padEnd(
          BULK_PROPERTY_NAME_LENGTH,
          '.',
        ),
        units: 1,
        pmsHotelId: `VERIFY-BULK-${firstIndex + index}`,
        createdAt: new Date().toISOString(),
      }),
    )
    .flatMap((item) => (item.Put ? [item.Put.Item as Record<string, unknown>] : []));
  await batchWrite(items.map((item) => ({ PutRequest: { Item: item } })));
  return { ids, keys: items.map((item) => ({ PK: String(item.PK), SK: String(item.SK) })) };
}

export async function deleteItems(keys: readonly ItemKey[]): Promise<void> {
  await batchWrite(keys.map((key) => ({ DeleteRequest: { Key: key } })));
}

type WriteRequest = { PutRequest: { Item: Record<string, unknown> } } | { DeleteRequest: { Key: ItemKey } };

/** BatchWriteItem 25 at a time, a few batches in flight, retrying what DynamoDB leaves unprocessed. */
async function batchWrite(requests: readonly WriteRequest[]): Promise<void> {
  const batches: WriteRequest[][] = [];
  for (let start = 0; start < requests.length; start += 25) batches.push(requests.slice(start, start + 25));
  const worker = async () => {
    for (let batch = batches.shift(); batch; batch = batches.shift()) {
      let pending: WriteRequest[] = batch;
      for (let attempt = 0; pending.length > 0; attempt += 1) {
        if (attempt > 0)
          await new Promise((resolve) => setTimeout(resolve, Math.min(2 ** attempt * 50, 2_000)));
        const { UnprocessedItems } = await dynamoDb().send(
          new BatchWriteCommand({ RequestItems: { [tableName()]: pending } }),
        );
        pending = (UnprocessedItems?.[tableName()] ?? []) as WriteRequest[];
      }
    }
  };
  await Promise.all(Array.from({ length: 4 }, worker));
}
