import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { QueryCommandInput, TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { ServiceConfig } from '../common/config';
import { serviceConfig } from '../common/config';

let made: { readonly config: ServiceConfig; readonly client: DynamoDBDocumentClient } | undefined;

/**
 * The DynamoDB client, made on first use and kept for the instance, so warm invocations reuse its
 * connections (made again only if the settings change: the operator CLI switching stage).
 */
export function dynamoDb(): DynamoDBDocumentClient {
  const config = serviceConfig();
  if (made?.config !== config) {
    const local = config.local?.dynamoDbEndpoint
      ? { endpoint: config.local.dynamoDbEndpoint, region: 'local', credentials: config.local.credentials }
      : {};
    const client = new DynamoDBClient({
      ...local,
      maxAttempts: 3,
      // A stuck call must end as a 503 well before the Lambda timeout, not as a timeout. Without
      // throwOnRequestTimeout the SDK only logs a warning when requestTimeout passes, and waits on.
      requestHandler: {
        connectionTimeout: 1_000,
        requestTimeout: requestTimeoutMs(),
        throwOnRequestTimeout: true,
      },
    });
    made = {
      config,
      client: DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } }),
    };
  }
  return made.client;
}

/**
 * How long one DynamoDB call may take: 2.5 s in a function. The local server's own process (its
 * seeding, against a DynamoDB Local on a busy machine) answers no caller and may wait longer:
 * `npm start` sets `DYNAMODB_REQUEST_TIMEOUT_MS` for itself, never for the functions it runs.
 */
function requestTimeoutMs(): number {
  const configured = Number(process.env.DYNAMODB_REQUEST_TIMEOUT_MS);
  return Number.isInteger(configured) && configured > 0 ? configured : 2_500;
}

/** The table of the service's settings; a function granted no table has none, and says so. */
export function tableName(): string {
  const name = serviceConfig().tableName;
  if (name === undefined)
    throw new Error('Environment variable TABLE_NAME is not set; the stack (or npm start) must provide it.');
  return name;
}

/** One action of a TransactWriteItems call. */
export type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

/** Every item of a Query, following its pages. */
export async function queryAll(input: QueryCommandInput): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const page = await dynamoDb().send(new QueryCommand({ ...input, ExclusiveStartKey }));
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

/** DynamoDB's limit of actions in one transaction. */
export const MAX_TRANSACTION_ITEMS = 100;
