import { GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { partnerPartition, propertyPartition } from '../../core/partitions';
import { isConditionFailure } from '../common/aws-errors';
import { dynamoDb, GSI1, queryAll, sortableId, type TransactItem, tableName } from './db';

/** A sponsored property: one per partner and partner-side `pms_hotel_id`. */
export interface Property {
  readonly id: number;
  readonly partnerId: number;
  readonly hostUserId: number;
  readonly name: string;
  /** Rentable units; occupancy is occupied units / units, capped at 1. */
  readonly units: number;
  readonly pmsHotelId: string;
  readonly createdAt: string;
}

const propertyKey = (partnerId: number, propertyId: number) => ({
  PK: partnerPartition(partnerId),
  SK: `PROPERTY#${sortableId(propertyId)}`,
});
const pmsHotelKey = (partnerId: number, pmsHotelId: string) => ({
  PK: partnerPartition(partnerId),
  SK: `PMS#${pmsHotelId}`,
});

/** The property and the claim on its `pms_hotel_id` within the partner. */
export function propertyCreationItems(property: Property): TransactItem[] {
  return [
    {
      Put: {
        TableName: tableName(),
        Item: { ...pmsHotelKey(property.partnerId, property.pmsHotelId), propertyId: property.id },
        ConditionExpression: 'attribute_not_exists(PK)',
      },
    },
    {
      Put: {
        TableName: tableName(),
        Item: {
          ...propertyKey(property.partnerId, property.id),
          GSI1PK: propertyPartition(property.id),
          GSI1SK: 'PROPERTY',
          ...property,
        },
        ConditionExpression: 'attribute_not_exists(PK)',
      },
    },
  ];
}

function toProperty(item: Record<string, unknown> | undefined): Property | undefined {
  if (!item) return undefined;
  return {
    id: Number(item.id),
    partnerId: Number(item.partnerId),
    hostUserId: Number(item.hostUserId),
    name: String(item.name),
    units: Number(item.units ?? 1),
    pmsHotelId: String(item.pmsHotelId),
    createdAt: String(item.createdAt),
  };
}

/** The property only if this partner sponsors it: one read that is also the ownership check. */
export async function getPropertyOfPartner(
  partnerId: number,
  propertyId: number,
  { consistent = false }: { consistent?: boolean } = {},
): Promise<Property | undefined> {
  const { Item } = await dynamoDb().send(
    new GetCommand({
      TableName: tableName(),
      Key: propertyKey(partnerId, propertyId),
      ConsistentRead: consistent,
    }),
  );
  return toProperty(Item);
}

/** Asserts, inside a transaction, that the property is still the given host's. */
export function propertyOwnerCheckItem(
  partnerId: number,
  propertyId: number,
  hostUserId: number,
): TransactItem {
  return {
    ConditionCheck: {
      TableName: tableName(),
      Key: propertyKey(partnerId, propertyId),
      ConditionExpression: 'hostUserId = :hostId',
      ExpressionAttributeValues: { ':hostId': hostUserId },
    },
  };
}

export async function getPropertyIdForPmsHotel(
  partnerId: number,
  pmsHotelId: string,
): Promise<number | undefined> {
  const { Item } = await dynamoDb().send(
    new GetCommand({ TableName: tableName(), Key: pmsHotelKey(partnerId, pmsHotelId), ConsistentRead: true }),
  );
  return Item ? Number(Item.propertyId) : undefined;
}

const PROPERTY_LIST_QUERY = (partnerId: number) => ({
  TableName: tableName(),
  KeyConditionExpression: 'PK = :partner AND begins_with(SK, :property)',
  ExpressionAttributeValues: { ':partner': partnerPartition(partnerId), ':property': 'PROPERTY#' },
  ProjectionExpression: 'id, #name',
  ExpressionAttributeNames: { '#name': 'name' },
});

const toSummary = (item: Record<string, unknown>) => ({ id: Number(item.id), name: String(item.name) });

/** The partner's properties (id and name only), ordered by id. */
export async function listPropertiesOfPartner(partnerId: number): Promise<{ id: number; name: string }[]> {
  return (await queryAll(PROPERTY_LIST_QUERY(partnerId))).map(toSummary);
}

/**
 * One page of the partner's properties in id order: at most `limit` with an id above `afterId`,
 * and whether more follow. The key condition starts the read right after the cursor (a range on the
 * sort key, `SK BETWEEN PROPERTY#<afterId + 1> AND PROPERTY#~`: ids are zero-padded digits, and `~`
 * sorts after every digit), so a page costs the same wherever it is and however long the list. It
 * reads `limit + 1` items (one query; another only when DynamoDB's 1 MB page ends first), so the
 * last page is known to be the last without an empty page after it.
 */
export async function listPropertiesPage(
  partnerId: number,
  { afterId, limit }: { afterId?: number; limit: number },
): Promise<{ properties: { id: number; name: string }[]; more: boolean }> {
  const list = PROPERTY_LIST_QUERY(partnerId);
  const input =
    afterId === undefined
      ? list
      : {
          ...list,
          KeyConditionExpression: 'PK = :partner AND SK BETWEEN :from AND :to',
          ExpressionAttributeValues: {
            ':partner': partnerPartition(partnerId),
            ':from': propertyKey(partnerId, afterId + 1).SK,
            ':to': 'PROPERTY#~',
          },
        };
  const items: Record<string, unknown>[] = [];
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const page = await dynamoDb().send(
      new QueryCommand({ ...input, Limit: limit + 1 - items.length, ExclusiveStartKey }),
    );
    items.push(...(page.Items ?? []));
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey && items.length <= limit);
  return { properties: items.slice(0, limit).map(toSummary), more: items.length > limit };
}

/** A property by id alone, whoever sponsors it (operators only). */
export async function findPropertyById(propertyId: number): Promise<Property | undefined> {
  const { Items = [] } = await dynamoDb().send(
    new QueryCommand({
      TableName: tableName(),
      IndexName: GSI1,
      KeyConditionExpression: 'GSI1PK = :property AND GSI1SK = :kind',
      ExpressionAttributeValues: { ':property': propertyPartition(propertyId), ':kind': 'PROPERTY' },
    }),
  );
  return toProperty(Items[0]);
}

/** Updates a property's name or unit count; false when it does not exist. */
export async function updateProperty(
  partnerId: number,
  propertyId: number,
  changes: { name?: string; units?: number },
): Promise<boolean> {
  const entries = Object.entries(changes).filter(([, value]) => value !== undefined);
  if (entries.length === 0) return true;
  try {
    await dynamoDb().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: propertyKey(partnerId, propertyId),
        UpdateExpression: `SET ${entries.map(([field]) => `#${field} = :${field}`).join(', ')}`,
        ConditionExpression: 'attribute_exists(PK)',
        ExpressionAttributeNames: Object.fromEntries(entries.map(([field]) => [`#${field}`, field])),
        ExpressionAttributeValues: Object.fromEntries(entries.map(([field, value]) => [`:${field}`, value])),
      }),
    );
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}
