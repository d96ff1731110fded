import { RemovalPolicy } from 'aws-cdk-lib';
import { AttributeType, Billing, ProjectionType, TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { Construct } from 'constructs';
import { tableDefinition } from '../../core/contract/table-definition';

export interface ServiceTableProps {
  /**
   * Keep the table when the stack is deleted and refuse deletes (DynamoDB deletion protection).
   * @default false
   */
  readonly retain?: boolean;
}

/**
 * The service's single table, from `contract/table-definition.ts` (the local server creates
 * DynamoDB Local's table from the same definition): on-demand, point-in-time recovery, TTL.
 */
export class ServiceTable extends Construct {
  public readonly table: TableV2;
  /** Name of the global secondary index. */
  public readonly indexName: string = tableDefinition.globalIndex.name;

  constructor(scope: Construct, id: string, props: ServiceTableProps = {}) {
    super(scope, id);
    const { partitionKey, sortKey, globalIndex, timeToLiveAttribute } = tableDefinition;
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
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      deletionProtection: retain,
      removalPolicy: retain ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
    });
  }
}
