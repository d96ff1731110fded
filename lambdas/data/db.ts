import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { config } from '../shared/config';

/** The process-wide DynamoDB client: created once so warm invocations reuse its connections. */
export const documentClient = DynamoDBDocumentClient.from(
  new DynamoDBClient({
    ...(config.dynamoDbEndpoint
      ? {
          endpoint: config.dynamoDbEndpoint,
          region: 'local',
          credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
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
export const GSI1 = 'GSI1';

/** True when a single conditional write failed its condition. */
export function isConditionFailure(error: unknown): boolean {
  return error instanceof Error && error.name === 'ConditionalCheckFailedException';
}

/** Per-item cancellation codes of a failed transaction, or undefined for other errors. */
export function transactionCancellationCodes(error: unknown): (string | undefined)[] | undefined {
  if (!(error instanceof Error) || error.name !== 'TransactionCanceledException') return undefined;
  const reasons = (error as Error & { CancellationReasons?: { Code?: string }[] }).CancellationReasons;
  return (reasons ?? []).map((reason) => reason.Code);
}

const RETRYABLE_CANCELLATION_CODES = new Set([
  'None',
  'TransactionConflict',
  'ThrottlingError',
  'ProvisionedThroughputExceeded',
]);

/**
 * A transaction cancelled only because of contention or throttling (another transaction held
 * an item, or capacity ran short): nothing was written, and trying again is right.
 */
export function isRetryableCancellation(error: unknown): boolean {
  const codes = transactionCancellationCodes(error);
  return (
    codes?.some((code) => code !== 'None') === true &&
    codes.every((code) => RETRYABLE_CANCELLATION_CODES.has(code ?? 'None'))
  );
}

/** Zero-padded decimal so integer ids sort numerically inside a sort key. */
export function sortableId(id: number): string {
  return String(id).padStart(12, '0');
}

/** Epoch seconds for the table's TTL attribute. */
export function ttlEpochSeconds(expiresAtMs: number): number {
  return Math.ceil(expiresAtMs / 1000);
}
