import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { ProductId } from '../domain/catalog';
import { isProductId } from '../domain/catalog';
import { documentClient, sortableId, TABLE_NAME, type TransactItem } from './db';
import { partnerPartition } from './partitions';

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
      TableName: TABLE_NAME,
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
  const { Items = [] } = await documentClient.send(
    new QueryCommand({
      TableName: TABLE_NAME,
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
