import { PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { isConditionFailure } from '../common/aws-errors';
import type { Product } from '../domain/catalog';
import { isProductId } from '../domain/catalog';
import { documentClient, GSI1, TABLE_NAME } from './db';
import { CATALOG_INDEX_PARTITION, PRODUCT_PARTITION } from './partitions';

const productKey = (id: string) => ({ PK: `${PRODUCT_PARTITION}${id}`, SK: 'PRODUCT' });

/** Stores a product unless one with its id exists; false when it does. */
export async function addProduct(product: Product): Promise<boolean> {
  try {
    await documentClient.send(
      new PutCommand({
        TableName: TABLE_NAME,
        Item: { ...productKey(product.id), GSI1PK: CATALOG_INDEX_PARTITION, GSI1SK: product.id, ...product },
        ConditionExpression: 'attribute_not_exists(PK)',
      }),
    );
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}

/**
 * Gives a stored default product the `goesLive` it was created without (items written before
 * products carried it), unless an operator set or removed it since (removal stores `false`) or
 * renamed the product.
 */
async function addMissingGoesLive(product: Product): Promise<void> {
  if (!product.goesLive) return;
  try {
    await documentClient.send(
      new UpdateCommand({
        TableName: TABLE_NAME,
        Key: productKey(product.id),
        UpdateExpression: 'SET #goesLive = :goesLive',
        ConditionExpression: 'attribute_exists(PK) AND attribute_not_exists(#goesLive) AND #name = :name',
        ExpressionAttributeNames: { '#goesLive': 'goesLive', '#name': 'name' },
        ExpressionAttributeValues: { ':goesLive': product.goesLive, ':name': product.name },
      }),
    );
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
  }
}

/**
 * Creates the catalog's missing products; products already stored are left as they are, so
 * names or descriptions edited in the table are never overwritten (only a `goesLive` they were
 * stored without is added).
 */
export async function ensureCatalog(products: readonly Product[]): Promise<void> {
  await Promise.all(
    products.map(async (product) => {
      if (!(await addProduct(product))) await addMissingGoesLive(product);
    }),
  );
}

/** What an edit may change: each text is optional; `goesLive: null` removes it (stored as `false`). */
export interface ProductEdit {
  readonly name?: string;
  readonly description?: string;
  readonly goesLive?: Product['goesLive'] | null;
}

/** Edits a stored product; undefined when there is no such product. */
export async function editProduct(id: string, edit: ProductEdit): Promise<Product | undefined> {
  const set: string[] = [];
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  for (const field of ['name', 'description', 'goesLive'] as const) {
    const value = edit[field];
    if (value === undefined) continue;
    // `name` is a reserved word of DynamoDB expressions: every field goes through a placeholder.
    names[`#${field}`] = field;
    set.push(`#${field} = :${field}`);
    // A removed `goesLive` stays as `false`, so the default catalog never brings it back.
    values[`:${field}`] = value === null ? false : value;
  }
  const expression = `SET ${set.join(', ')}`;
  try {
    const { Attributes } = await documentClient.send(
      new UpdateCommand({
        TableName: TABLE_NAME,
        Key: productKey(id),
        UpdateExpression: expression,
        ConditionExpression: 'attribute_exists(PK)',
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
        ReturnValues: 'ALL_NEW',
      }),
    );
    return toProduct(Attributes);
  } catch (error) {
    if (isConditionFailure(error)) return undefined;
    throw error;
  }
}

function toProduct(item: Record<string, unknown> | undefined): Product | undefined {
  if (!item || !isProductId(item.id)) return undefined;
  const goesLive = item.goesLive as Record<string, unknown> | undefined;
  return {
    id: item.id,
    name: String(item.name),
    description: String(item.description),
    ...(typeof goesLive?.submitLabel === 'string' && typeof goesLive.liveMessage === 'string'
      ? { goesLive: { submitLabel: goesLive.submitLabel, liveMessage: goesLive.liveMessage } }
      : {}),
  };
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
  return Items.flatMap((item) => toProduct(item) ?? []);
}
