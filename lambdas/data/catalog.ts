import { BatchWriteCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { Product } from '../domain/catalog';
import { isProductId } from '../domain/catalog';
import { documentClient, GSI1, TABLE_NAME } from './db';

const productKey = (id: string) => ({ PK: `PRODUCT#${id}`, SK: 'PRODUCT' });

/** Writes the catalog (idempotent: same ids, same items). */
export async function putCatalog(products: readonly Product[]): Promise<void> {
  await documentClient.send(
    new BatchWriteCommand({
      RequestItems: {
        [TABLE_NAME]: products.map((product) => ({
          PutRequest: {
            Item: { ...productKey(product.id), GSI1PK: 'PRODUCTS', GSI1SK: product.id, ...product },
          },
        })),
      },
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
      ExpressionAttributeValues: { ':products': 'PRODUCTS' },
    }),
  );
  return Items.flatMap((item) =>
    typeof item.id === 'string' && isProductId(item.id)
      ? [{ id: item.id, name: String(item.name), description: String(item.description) }]
      : [],
  );
}
