import { GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { PlatformEventDetail } from '../../core/contract/platform-events';
import { partnerPartition, propertyPartition } from '../../core/partitions';
import { isConditionFailure } from '../common/aws-errors';
import { dynamoDb, GSI1, queryAll, sortableId, type TransactItem, tableName } from './db';
import type { EventOutcome } from './event-versions';
import { storedVersionOf, versionVerdict } from './event-versions';

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
  /** Set while the host's sponsorship by this partner has ended: the partner no longer sees it. */
  readonly sponsorshipEndedAt?: string;
  /** The version of the platform's last `PropertyUpdated` applied (docs/design/events.md). */
  readonly version?: number;
  /**
   * How many times activation links provisioned the property: the version of its last
   * `HostProvisioned` (docs/design/events.md#what-this-service-sends). Absent on items written before.
   */
  readonly provisionVersion?: number;
}

const propertyKey = (partnerId: number, propertyId: number) => ({
  PK: partnerPartition(partnerId),
  SK: `PROPERTY#${sortableId(propertyId)}`,
});
const pmsHotelKey = (partnerId: number, pmsHotelId: string) => ({
  PK: partnerPartition(partnerId),
  SK: `PMS#${pmsHotelId}`,
});
/**
 * The property's own item in its partition (where its reservations and knowledge base live):
 * whose it is, found by id alone with a strongly consistent read, and, once its host is erased, a
 * tombstone that keeps later events from writing anything there again (docs/design/events.md).
 */
const propertyAnchorKey = (propertyId: number) => ({ PK: propertyPartition(propertyId), SK: 'PROPERTY' });

/** Whose a property is, from its own partition. */
export interface PropertyAnchor {
  readonly propertyId: number;
  readonly partnerId: number;
  readonly hostUserId: number;
  /** When it was provisioned (absent on anchors written before it was kept). */
  readonly createdAt?: string;
  /** Set when its host was erased: nothing of the property is left but this item. */
  readonly erasedAt?: string;
  /** How many transactions changed its reservations (`propertyReservationsChangedItem`); none before the first. */
  readonly reservationChanges?: number;
}

/**
 * Anchors read by this instance, for a minute: whose a property is never changes, and whether it
 * was erased is decided by the condition every write of an event checks (`propertyNotErasedCheckItem`),
 * so a remembered anchor can only cost a failed write, after which the event reads it again.
 */
const rememberedAnchors = new Map<number, { anchor: PropertyAnchor; at: number }>();
const ANCHOR_MEMORY_MS = 60_000;
const MAX_REMEMBERED_ANCHORS = 10_000;

/** Whose a property is, strongly consistent; `remembered`, as this instance read it in the last minute. */
export async function getPropertyAnchor(
  propertyId: number,
  { remembered = false }: { remembered?: boolean } = {},
): Promise<PropertyAnchor | undefined> {
  const known = remembered ? rememberedAnchors.get(propertyId) : undefined;
  // A clock set back (a test's, or a host's) makes the memory as old as can be, not newer.
  const age = known ? Date.now() - known.at : -1;
  if (known && age >= 0 && age < ANCHOR_MEMORY_MS) return known.anchor;
  const { Item } = await dynamoDb().send(
    new GetCommand({ TableName: tableName(), Key: propertyAnchorKey(propertyId), ConsistentRead: true }),
  );
  if (!Item) return undefined;
  const anchor: PropertyAnchor = {
    propertyId: Number(Item.propertyId),
    partnerId: Number(Item.partnerId),
    hostUserId: Number(Item.hostUserId),
    ...(typeof Item.createdAt === 'string' ? { createdAt: Item.createdAt } : {}),
    ...(typeof Item.erasedAt === 'string' ? { erasedAt: Item.erasedAt } : {}),
    ...(typeof Item.reservationChanges === 'number' ? { reservationChanges: Item.reservationChanges } : {}),
  };
  if (anchor.erasedAt === undefined) {
    if (rememberedAnchors.size >= MAX_REMEMBERED_ANCHORS) rememberedAnchors.clear();
    rememberedAnchors.set(propertyId, { anchor, at: Date.now() });
  } else rememberedAnchors.delete(propertyId);
  return anchor;
}

/** Asserts, inside a transaction, that the property exists and its host was not erased. */
export function propertyNotErasedCheckItem(propertyId: number): TransactItem {
  return {
    ConditionCheck: {
      TableName: tableName(),
      Key: propertyAnchorKey(propertyId),
      ConditionExpression: 'attribute_exists(PK) AND attribute_not_exists(erasedAt)',
    },
  };
}

/**
 * In the transaction that changes any of the property's reservations (and so its aggregates): the
 * check that the property exists and was not erased, and one more change counted on its own item.
 * The aggregates rebuild reads that count first and writes on condition that it did not move, so
 * no change of reservations can slip between its reads and its write (docs/design/data-migrations.md).
 */
export function propertyReservationsChangedItem(propertyId: number): TransactItem {
  return {
    Update: {
      TableName: tableName(),
      Key: propertyAnchorKey(propertyId),
      UpdateExpression: 'ADD reservationChanges :one',
      ConditionExpression: 'attribute_exists(PK) AND attribute_not_exists(erasedAt)',
      ExpressionAttributeValues: { ':one': 1 },
    },
  };
}

/**
 * Asserts, inside a transaction, that the property exists, was not erased, and its reservations
 * changed as many times as `changes` says (undefined: never): what the rebuild read is still so.
 */
export function propertyReservationsUnchangedCheckItem(
  propertyId: number,
  changes: number | undefined,
): TransactItem {
  return {
    ConditionCheck: {
      TableName: tableName(),
      Key: propertyAnchorKey(propertyId),
      ConditionExpression: `attribute_exists(PK) AND attribute_not_exists(erasedAt) AND ${
        changes === undefined ? 'attribute_not_exists(reservationChanges)' : 'reservationChanges = :changes'
      }`,
      ...(changes === undefined ? {} : { ExpressionAttributeValues: { ':changes': changes } }),
    },
  };
}

/** Marks the property erased: from then on, no event or page writes to its partition. */
export function propertyErasedItem(propertyId: number, nowIso: string): TransactItem {
  return {
    Update: {
      TableName: tableName(),
      Key: propertyAnchorKey(propertyId),
      UpdateExpression: 'SET erasedAt = if_not_exists(erasedAt, :now)',
      ConditionExpression: 'attribute_exists(PK)',
      ExpressionAttributeValues: { ':now': nowIso },
    },
  };
}

/** The property and the claim on its `pms_hotel_id` within the partner. */
export function propertyCreationItems(property: Property): TransactItem[] {
  return [
    {
      Put: {
        TableName: tableName(),
        Item: {
          ...propertyAnchorKey(property.id),
          propertyId: property.id,
          partnerId: property.partnerId,
          hostUserId: property.hostUserId,
          createdAt: property.createdAt,
        },
        ConditionExpression: 'attribute_not_exists(PK)',
      },
    },
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
    ...(typeof item.sponsorshipEndedAt === 'string' ? { sponsorshipEndedAt: item.sponsorshipEndedAt } : {}),
    ...(typeof item.version === 'number' ? { version: item.version } : {}),
    ...(typeof item.provisionVersion === 'number' ? { provisionVersion: item.provisionVersion } : {}),
  };
}

/**
 * The property only if this partner sponsors it: one read that is also the ownership check. A
 * property whose sponsorship ended is not the partner's any more; `includeEnded` still finds it
 * (provisioning sponsors it again).
 */
export async function getPropertyOfPartner(
  partnerId: number,
  propertyId: number,
  { consistent = false, includeEnded = false }: { consistent?: boolean; includeEnded?: boolean } = {},
): Promise<Property | undefined> {
  const { Item } = await dynamoDb().send(
    new GetCommand({
      TableName: tableName(),
      Key: propertyKey(partnerId, propertyId),
      ConsistentRead: consistent,
    }),
  );
  const property = toProperty(Item);
  return property?.sponsorshipEndedAt === undefined || includeEnded ? property : undefined;
}

/**
 * Asserts, inside a transaction, that the property is still the given host's, sponsors it again if
 * its sponsorship had ended (docs/design/events.md#sponsorships), and counts the provisioning: its
 * `HostProvisioned` takes the next version, on condition that no other provisioning took it first.
 */
export function propertyOwnerCheckItem(
  partnerId: number,
  propertyId: number,
  hostUserId: number,
  provisionVersionAsRead: number | undefined,
): TransactItem {
  return {
    Update: {
      TableName: tableName(),
      Key: propertyKey(partnerId, propertyId),
      UpdateExpression: 'SET provisionVersion = :next REMOVE sponsorshipEndedAt',
      ConditionExpression: `hostUserId = :hostId AND ${provisionVersionAsRead === undefined ? 'attribute_not_exists(provisionVersion)' : 'provisionVersion = :read'}`,
      ExpressionAttributeValues: {
        ':hostId': hostUserId,
        ':next': (provisionVersionAsRead ?? 0) + 1,
        ...(provisionVersionAsRead === undefined ? {} : { ':read': provisionVersionAsRead }),
      },
    },
  };
}

/**
 * Asserts, inside a transaction, that the partner still sponsors the property (a wizard save), and
 * renames it when the save does.
 */
export function propertySponsoredCheckItem(
  partnerId: number,
  propertyId: number,
  newName?: string,
): TransactItem {
  const check = {
    TableName: tableName(),
    Key: propertyKey(partnerId, propertyId),
    ConditionExpression: 'attribute_exists(PK) AND attribute_not_exists(sponsorshipEndedAt)',
  };
  // A rename is the host's own (no version): the later of it and a PropertyUpdated stands.
  return newName === undefined
    ? { ConditionCheck: check }
    : {
        Update: {
          ...check,
          UpdateExpression: 'SET #name = :name',
          ExpressionAttributeNames: { '#name': 'name' },
          ExpressionAttributeValues: { ':name': newName },
        },
      };
}

/**
 * An operator's units for the property (`reservations import --units`): the operator's own change,
 * like the wizard's rename, with no version. The versions stay the platform's (`version`,
 * `unitsVersion`), so the platform's next `PropertyUpdated` with units applies after it, and of the
 * two the later to arrive stands (docs/design/events.md#properties). One conditional write; false
 * when the partner's item of the property is gone (its host was erased).
 */
export async function setPropertyUnits(
  partnerId: number,
  propertyId: number,
  units: number,
): Promise<boolean> {
  try {
    await dynamoDb().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: propertyKey(partnerId, propertyId),
        UpdateExpression: 'SET #units = :units',
        ConditionExpression: 'attribute_exists(PK)',
        ExpressionAttributeNames: { '#units': 'units' },
        ExpressionAttributeValues: { ':units': units },
      }),
    );
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}

/** The partner's item of a property and its PMS claim, deleted (an erasure). */
export function propertyDeletionItems(
  property: Pick<Property, 'id' | 'partnerId' | 'pmsHotelId'>,
): TransactItem[] {
  return [
    { Delete: { TableName: tableName(), Key: propertyKey(property.partnerId, property.id) } },
    { Delete: { TableName: tableName(), Key: pmsHotelKey(property.partnerId, property.pmsHotelId) } },
  ];
}

/** Shows a property to its partner again: provisioning sponsored its host again. */
export function propertySponsorshipResumedItem(partnerId: number, propertyId: number): TransactItem {
  return {
    Update: {
      TableName: tableName(),
      Key: propertyKey(partnerId, propertyId),
      UpdateExpression: 'REMOVE sponsorshipEndedAt',
      ConditionExpression: 'attribute_exists(PK)',
    },
  };
}

/** Hides a property from its partner: the host's sponsorship by that partner ended. */
export function propertySponsorshipEndedItem(
  partnerId: number,
  propertyId: number,
  nowIso: string,
): TransactItem {
  return {
    Update: {
      TableName: tableName(),
      Key: propertyKey(partnerId, propertyId),
      UpdateExpression: 'SET sponsorshipEndedAt = if_not_exists(sponsorshipEndedAt, :now)',
      ConditionExpression: 'attribute_exists(PK)',
      ExpressionAttributeValues: { ':now': nowIso },
    },
  };
}

/** The property a partner's `pms_hotel_id` names (strongly consistent unless a read may lag). */
export async function getPropertyIdForPmsHotel(
  partnerId: number,
  pmsHotelId: string,
  { consistent = true }: { consistent?: boolean } = {},
): Promise<number | undefined> {
  const { Item } = await dynamoDb().send(
    new GetCommand({
      TableName: tableName(),
      Key: pmsHotelKey(partnerId, pmsHotelId),
      ConsistentRead: consistent,
    }),
  );
  return Item ? Number(Item.propertyId) : undefined;
}

/**
 * The partner's property with this `pms_hotel_id` (id and name only), as a list of one, or an empty
 * list: the PMS claim, then the property item, two Gets (the claim is unique per partner and
 * `pms_hotel_id`). A property whose sponsorship ended is not the partner's, as in the list.
 */
export async function findPropertiesByPmsHotelId(
  partnerId: number,
  pmsHotelId: string,
): Promise<{ id: number; name: string }[]> {
  const propertyId = await getPropertyIdForPmsHotel(partnerId, pmsHotelId, { consistent: false });
  if (propertyId === undefined) return [];
  const property = await getPropertyOfPartner(partnerId, propertyId);
  return property ? [{ id: property.id, name: property.name }] : [];
}

const PROPERTY_LIST_QUERY = (partnerId: number) => ({
  TableName: tableName(),
  KeyConditionExpression: 'PK = :partner AND begins_with(SK, :property)',
  ExpressionAttributeValues: { ':partner': partnerPartition(partnerId), ':property': 'PROPERTY#' },
  // A property whose sponsorship ended stays stored, for the host, but is not the partner's.
  FilterExpression: 'attribute_not_exists(sponsorshipEndedAt)',
  ProjectionExpression: 'id, #name',
  ExpressionAttributeNames: { '#name': 'name' },
});

const toSummary = (item: Record<string, unknown>) => ({ id: Number(item.id), name: String(item.name) });

/** The partner's properties (id and name only), ordered by id. */
export async function listPropertiesOfPartner(partnerId: number): Promise<{ id: number; name: string }[]> {
  return (await queryAll(PROPERTY_LIST_QUERY(partnerId))).map(toSummary);
}

/** The partner's properties with the partner's own ids of them (`partners show`), ordered by id. */
export async function listPropertiesWithPmsHotelIds(
  partnerId: number,
): Promise<{ id: number; name: string; pms_hotel_id: string }[]> {
  const query = { ...PROPERTY_LIST_QUERY(partnerId), ProjectionExpression: 'id, #name, pmsHotelId' };
  return (await queryAll(query)).map((item) => ({
    ...toSummary(item),
    pms_hotel_id: String(item.pmsHotelId),
  }));
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

/**
 * `PropertyUpdated`: each field it names takes its value when the event's version is greater than
 * the version that last set that field, so updates of different fields arriving in any order all
 * land, and each field ends at its greatest version's value (docs/design/events.md#properties).
 * One conditional write on the partner's property item; an erased property has none.
 */
export async function applyPropertyUpdate(
  detail: PlatformEventDetail<'PropertyUpdated'>,
  anchor: PropertyAnchor,
  fingerprint: string,
): Promise<EventOutcome> {
  const { partnerId, propertyId } = anchor;
  const { Item } = await dynamoDb().send(
    new GetCommand({ TableName: tableName(), Key: propertyKey(partnerId, propertyId), ConsistentRead: true }),
  );
  if (!Item) return 'erased';
  const stored = storedVersionOf(Item);
  const verdict = versionVerdict(stored, detail.version, fingerprint, `property ${propertyId}`);
  if (verdict === 'duplicate') return verdict;
  const fieldVersion = (field: 'name' | 'units') => {
    const value = Item[`${field}Version`];
    return typeof value === 'number' ? value : 0;
  };
  const changes = (['name', 'units'] as const).filter(
    (field) => detail[field] !== undefined && detail.version > fieldVersion(field),
  );
  if (verdict === 'stale' && changes.length === 0) return verdict;
  const values: Record<string, unknown> = { ':version': detail.version };
  const sets = changes.flatMap((field) => {
    values[`:${field}`] = detail[field];
    return [`#${field} = :${field}`, `${field}Version = :version`];
  });
  if (verdict === 'newer') {
    sets.push('version = :version', 'eventFingerprint = :fingerprint');
    values[':fingerprint'] = fingerprint;
  }
  const readVersion = stored.version;
  await dynamoDb().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: propertyKey(partnerId, propertyId),
      UpdateExpression: `SET ${sets.join(', ')}`,
      // The versions as read: another update of this property meanwhile makes this one read again.
      ConditionExpression: [
        'attribute_exists(PK)',
        readVersion === undefined ? 'attribute_not_exists(version)' : 'version = :read',
        ...changes.map((field) =>
          fieldVersion(field) === 0
            ? `attribute_not_exists(${field}Version)`
            : `${field}Version = :${field}Read`,
        ),
      ].join(' AND '),
      ExpressionAttributeNames: Object.fromEntries(changes.map((field) => [`#${field}`, field])),
      ExpressionAttributeValues: {
        ...values,
        ...(readVersion === undefined ? {} : { ':read': readVersion }),
        ...Object.fromEntries(
          changes
            .filter((field) => fieldVersion(field) > 0)
            .map((field) => [`:${field}Read`, fieldVersion(field)]),
        ),
      },
    }),
  );
  return 'applied';
}
