import type {
  DynamoDBDocumentClientResolvedConfig,
  ServiceInputTypes,
  ServiceOutputTypes,
  UpdateCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import type { AwsStub } from 'aws-sdk-client-mock';

type DocumentClientStub = AwsStub<
  ServiceInputTypes,
  ServiceOutputTypes,
  DynamoDBDocumentClientResolvedConfig
>;

/** A conditional write refused, as the SDK throws it (the stored item marshalled on it). */
function conditionFailure(item: Record<string, unknown> | undefined): Error {
  return Object.assign(new Error('The conditional request failed'), {
    name: 'ConditionalCheckFailedException',
    $fault: 'client',
    $metadata: {},
    ...(item ? { Item: marshall(item) } : {}),
  });
}

/**
 * DynamoDB's behaviour for the two rate-window writes of `lambdas/data/rate-windows.ts`, in
 * memory: a slot claim (`SET #slots[i]` under a condition on the list size and that slot) and
 * the creation of the list (`attribute_not_exists OR size <>`). Each call is atomic, as in
 * DynamoDB, and calls from concurrent promises interleave at their awaits. Unknown
 * expressions fail the test.
 */
export function fakeRateWindowTable(dynamo: DocumentClientStub) {
  const items = new Map<string, Record<string, unknown>>();
  const writes = { claimed: 0, created: 0, refused: 0 };
  dynamo.on(UpdateCommand).callsFake(async (input: UpdateCommandInput) => {
    await Promise.resolve(); // a write answers asynchronously, so concurrent calls interleave
    const pk = String(input.Key?.PK);
    const item = items.get(pk);
    const slots = Array.isArray(item?.slots) ? (item.slots as number[]) : undefined;
    const values = input.ExpressionAttributeValues ?? {};
    const claim = /^SET #slots\[(\d+)\] = :now$/.exec(input.UpdateExpression ?? '');
    if (claim) {
      const index = Number(claim[1]);
      const slot = slots?.[index];
      if (
        !slots ||
        slots.length !== values[':limit'] ||
        slot === undefined ||
        slot > Number(values[':freeBefore'])
      ) {
        writes.refused += 1;
        throw conditionFailure(item);
      }
      slots[index] = Number(values[':now']);
      writes.claimed += 1;
      return { Attributes: structuredClone(item) };
    }
    if (/^SET #slots = :slots$/.test(input.UpdateExpression ?? '')) {
      if (slots && slots.length === values[':limit']) {
        writes.refused += 1;
        throw conditionFailure(item);
      }
      items.set(pk, {
        ...(item ?? { PK: pk, SK: input.Key?.SK }),
        slots: [...(values[':slots'] as number[])],
      });
      writes.created += 1;
      return {};
    }
    throw new Error(`The fake rate-window table does not know this update: ${input.UpdateExpression}`);
  });
  return {
    items,
    writes,
    /** A key's slots as stored (ms since the window epoch of rate-windows.ts; 0 for never used). */
    storedSlots(prefix: string): number[] {
      const stored = items.get(`RATELIMIT#${prefix}`)?.slots;
      return Array.isArray(stored) ? (stored as number[]) : [];
    },
  };
}
