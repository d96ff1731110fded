import type { CreateTableCommandInput } from '@aws-sdk/client-dynamodb';
import { STREAM_VIEW } from '../outbound-delivery';

/**
 * The one table, as data: the CDK stack and the local server both build it from here.
 * Generic key names (PK/SK, GSI1PK/GSI1SK) let every entity share it; see docs/design/data-model.md.
 */
export const tableDefinition = {
  partitionKey: 'PK',
  sortKey: 'SK',
  globalIndex: { name: 'GSI1', partitionKey: 'GSI1PK', sortKey: 'GSI1SK' },
  /** Epoch seconds after which DynamoDB may delete the item (reveals, used nonces, sessions). */
  timeToLiveAttribute: 'ttl',
  /** The stream the outbox is delivered from: keys only (core/outbound-delivery.ts). */
  streamView: STREAM_VIEW,
} as const;

/**
 * The `CreateTable` input the local server uses (the stack maps the same fields to TableV2). A test's
 * own table that no pipe reads goes without the stream (`stream: false`): DynamoDB Local's streams
 * slow every write of the instance as their records pile up across tables (measured: 5,000 writes
 * from 3 s to 35 s over six tables), and the suites share one instance.
 */
export function createTableInput(
  tableName: string,
  { stream = true }: { readonly stream?: boolean } = {},
): CreateTableCommandInput {
  const { partitionKey, sortKey, globalIndex } = tableDefinition;
  return {
    TableName: tableName,
    BillingMode: 'PAY_PER_REQUEST',
    ...(stream
      ? { StreamSpecification: { StreamEnabled: true, StreamViewType: tableDefinition.streamView } }
      : {}),
    AttributeDefinitions: [partitionKey, sortKey, globalIndex.partitionKey, globalIndex.sortKey].map(
      (AttributeName) => ({ AttributeName, AttributeType: 'S' as const }),
    ),
    KeySchema: [
      { AttributeName: partitionKey, KeyType: 'HASH' },
      { AttributeName: sortKey, KeyType: 'RANGE' },
    ],
    GlobalSecondaryIndexes: [
      {
        IndexName: globalIndex.name,
        KeySchema: [
          { AttributeName: globalIndex.partitionKey, KeyType: 'HASH' },
          { AttributeName: globalIndex.sortKey, KeyType: 'RANGE' },
        ],
        Projection: { ProjectionType: 'ALL' },
      },
    ],
  };
}
