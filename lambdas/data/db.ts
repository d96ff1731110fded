import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { QueryCommandInput, TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { config } from '../common/config';

/** The process-wide DynamoDB client: created once so warm invocations reuse its connections. */
export const documentClient = DynamoDBDocumentClient.from(
  new DynamoDBClient({
    ...(config.dynamoDbEndpoint
      ? {
          endpoint: config.dynamoDbEndpoint,
          region: 'local',
          credentials: { accessKeyId: config.localAccessKeyId, secretAccessKey: config.localSecretAccessKey },
        }
      : {}),
    maxAttempts: 3,
    // A stuck call must end as a 503 well before the Lambda timeout, not as a timeout. Without
    // throwOnRequestTimeout the SDK only logs a warning when requestTimeout passes, and waits on.
    requestHandler: { connectionTimeout: 1_000, requestTimeout: 2_500, throwOnRequestTimeout: true },
  }),
  { marshallOptions: { removeUndefinedValues: true } },
);

export const TABLE_NAME = config.tableName;

/** One action of a TransactWriteItems call. */
export type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

/** Every item of a Query, following its pages. */
export async function queryAll(input: QueryCommandInput): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const page = await documentClient.send(new QueryCommand({ ...input, ExclusiveStartKey }));
    items.push(...(page.Items ?? []));
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  return items;
}
export const GSI1 = 'GSI1';

/** Zero-padded decimal so integer ids sort numerically inside a sort key. */
export function sortableId(id: number): string {
  return String(id).padStart(12, '0');
}

/** Epoch seconds for the table's TTL attribute. */
export function ttlEpochSeconds(expiresAtMs: number): number {
  return Math.ceil(expiresAtMs / 1000);
}
