import { PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { Product } from '../domain/catalog';
import { isProductId } from '../domain/catalog';
import { isConditionFailure } from '../shared/aws-errors';
import { documentClient, GSI1, TABLE_NAME } from './db';
import { CATALOG_INDEX_PARTITION, PRODUCT_PARTITION } from './partitions';

const productKey = (id: string) => ({ PK: `${PRODUCT_PARTITION}${id}`, SK: 'PRODUCT' });

/**
 * Creates the catalog's missing products; products already stored are left as they are, so
 * names or descriptions edited in the table are never overwritten.
 */
export async function ensureCatalog(products: readonly Product[]): Promise<void> {
  await Promise.all(
    products.map(async (product) => {
      try {
        await documentClient.send(
          new PutCommand({
            TableName: TABLE_NAME,
            Item: {
              ...productKey(product.id),
              GSI1PK: CATALOG_INDEX_PARTITION,
              GSI1SK: product.id,
              ...product,
            },
            ConditionExpression: 'attribute_not_exists(PK)',
          }),
        );
      } catch (error) {
        if (!isConditionFailure(error)) throw error;
      }
    }),
  );
}

/** The whole catalog, ordered by id. */
export async function listCatalog(): Promise<Product[]> {
  const { Items = [] } = await documentClient.send(
    new QueryCommand({
      TableName: TABLE_NAME,
      IndexName: GSI1,
      KeyConditionExpression: 'GSI1PK = :products',
      ExpressionAttributeValues: { ':products': CATALOG_INDEX_PARTITION },
    }),
  );
  return Items.flatMap((item) =>
    typeof item.id === 'string' && isProductId(item.id)
      ? [{ id: item.id, name: String(item.name), description: String(item.description) }]
      : [],
  );
}
