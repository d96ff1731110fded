import { RemovalPolicy } from 'aws-cdk-lib';
import {
  AttributeType,
  Billing,
  ProjectionType,
  StreamViewType,
  TableEncryptionV2,
  TableV2,
} from 'aws-cdk-lib/aws-dynamodb';
import { Construct } from 'constructs';
import { tableDefinition } from '../../core/contract/table-definition';
import { acknowledgeGuardFinding } from './nag';

export interface ServiceTableProps {
  /**
   * Keep the table when the stack is deleted and refuse deletes (DynamoDB deletion protection).
   * @default false
   */
  readonly retain?: boolean;
}

/**
 * The service's single table, from `contract/table-definition.ts` (the local server creates
 * DynamoDB Local's table from the same definition): on-demand, point-in-time recovery, TTL,
 * encrypted with the account's AWS managed key for DynamoDB (`aws/dynamodb`).
 */
export class ServiceTable extends Construct {
  public readonly table: TableV2;
  /** Name of the global secondary index. */
  public readonly indexName: string = tableDefinition.globalIndex.name;

  constructor(scope: Construct, id: string, props: ServiceTableProps = {}) {
    super(scope, id);
    const { partitionKey, sortKey, globalIndex, timeToLiveAttribute, streamView } = tableDefinition;
    const retain = props.retain ?? false;
    this.table = new TableV2(this, 'Table', {
      partitionKey: { name: partitionKey, type: AttributeType.STRING },
      sortKey: { name: sortKey, type: AttributeType.STRING },
      billing: Billing.onDemand(),
      globalSecondaryIndexes: [
        {
          indexName: globalIndex.name,
          partitionKey: { name: globalIndex.partitionKey, type: AttributeType.STRING },
          sortKey: { name: globalIndex.sortKey, type: AttributeType.STRING },
          projectionType: ProjectionType.ALL,
        },
      ],
      timeToLiveAttribute,
      // The outbox is delivered from it (docs/design/events.md#delivery-to-the-platform): keys only.
      dynamoStream: StreamViewType[streamView],
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      // DynamoDB encrypts every table; a KMS key (SSEEnabled) makes its use visible in CloudTrail
      // and is what the encryption rule asks for. The AWS managed key needs no key policy or grant
      // for principals DynamoDB already authorizes, and has no monthly fee (KMS bills its requests):
      // https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/EncryptionAtRest.html
      encryption: TableEncryptionV2.awsManagedKey(),
      deletionProtection: retain,
      removalPolicy: retain ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
    });
    if (!retain)
      acknowledgeGuardFinding(
        this.table,
        'dynamodb_global_table_deletion_protection_enabled',
        'This stage keeps no data worth keeping (lib/stage-config.ts, retainData: partners’ test data), and its ' +
          'table is removed with the stack; deletion protection would make every teardown fail. The stage that ' +
          'retains its data protects its table and passes the rule.',
      );
  }
}
