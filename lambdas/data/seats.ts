import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { ProductId } from '../../core/domain/catalog';
import { isProductId } from '../../core/domain/catalog';
import { partnerPartition } from '../../core/partitions';
import { dynamoDb, sortableId, type TransactItem, tableName } from './db';

/** A seat: one product active on one sponsored property (docs/design/activation-links.md). */
export interface Seat {
  readonly partnerId: number;
  readonly propertyId: number;
  readonly hostUserId: number;
  readonly productId: ProductId;
  readonly activatedAt: string;
}

const seatKey = (partnerId: number, propertyId: number, productId: ProductId) => ({
  PK: partnerPartition(partnerId),
  SK: `SEAT#${sortableId(propertyId)}#${productId}`,
});

/** A new seat; the condition means a product is never activated twice on a property. */
export function seatCreationItem(seat: Seat): TransactItem {
  return {
    Put: {
      TableName: tableName(),
      Item: { ...seatKey(seat.partnerId, seat.propertyId, seat.productId), ...seat, status: 'active' },
      ConditionExpression: 'attribute_not_exists(PK)',
    },
  };
}

/** Products already active on a property. */
export async function listActiveProductsOfProperty(
  partnerId: number,
  propertyId: number,
): Promise<ProductId[]> {
  const { Items = [] } = await dynamoDb().send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'PK = :partner AND begins_with(SK, :seats)',
      ExpressionAttributeValues: {
        ':partner': partnerPartition(partnerId),
        ':seats': `SEAT#${sortableId(propertyId)}#`,
      },
      ConsistentRead: true,
    }),
  );
  return Items.map((item) => String(item.productId)).filter(isProductId);
}
