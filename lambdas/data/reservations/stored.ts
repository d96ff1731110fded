import type { BatchGetCommandOutput } from '@aws-sdk/lib-dynamodb';
import { BatchGetCommand, GetCommand } from '@aws-sdk/lib-dynamodb';
import type { ChannelsByMonth, Reservation } from '../../../core/domain/reservations';
import { storedReservation } from '../../../core/domain/reservations';
import type { EventSource } from '../../../core/event-delivery';
import { propertyPartition } from '../../../core/partitions';
import { dynamoDb, queryAll, tableName } from '../db';
import type { StoredVersion } from '../event-versions';
import { storedVersionsOf } from '../event-versions';
import { AGGREGATE_FAMILIES, DAY_COUNTERS, keysIn, RESERVATION_SK_PREFIX, reservationKey } from './layout';

/** What is stored of a reservation: it, the revision writes are conditioned on, each source's version. */
export interface StoredReservation {
  readonly reservation: Reservation;
  readonly revision: number;
  /** The version each source last applied, in its own sequence (docs/design/events.md#versions). */
  readonly versions: Readonly<Record<EventSource, StoredVersion>>;
}

function toStoredReservation(item: Record<string, unknown> | undefined): StoredReservation | undefined {
  const reservation = storedReservation(item?.reservation);
  return (
    reservation && { reservation, revision: Number(item?.revision ?? 0), versions: storedVersionsOf(item) }
  );
}

/** One stored reservation of a property, strongly consistent (one GetItem). */
export async function getStoredReservation(
  propertyId: number,
  id: string,
): Promise<StoredReservation | undefined> {
  const { Item } = await dynamoDb().send(
    new GetCommand({ TableName: tableName(), Key: reservationKey(propertyId, id), ConsistentRead: true }),
  );
  return toStoredReservation(Item);
}

/** Every item of these keys, strongly consistent, 100 keys to a BatchGetItem, unprocessed keys asked again. */
async function batchGetAll(keys: readonly Record<string, unknown>[]): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  for (let start = 0; start < keys.length; start += 100) {
    let pending: Record<string, unknown>[] | undefined = keys.slice(start, start + 100);
    while (pending && pending.length > 0) {
      const page: BatchGetCommandOutput = await dynamoDb().send(
        new BatchGetCommand({ RequestItems: { [tableName()]: { Keys: pending, ConsistentRead: true } } }),
      );
      items.push(...(page.Responses?.[tableName()] ?? []));
      pending = page.UnprocessedKeys?.[tableName()]?.Keys;
    }
  }
  return items;
}

/**
 * What is stored of these reservations of a property, by id (strongly consistent).
 * Operator tooling only: it reads with BatchGetItem, which no function may call.
 */
export async function getStoredReservations(
  propertyId: number,
  ids: readonly string[],
): Promise<Map<string, StoredReservation>> {
  const stored = new Map<string, StoredReservation>();
  for (const item of await batchGetAll(ids.map((id) => reservationKey(propertyId, id)))) {
    const found = toStoredReservation(item);
    if (found) stored.set(found.reservation.id, found);
  }
  return stored;
}

const BOOKED_PREFIX = AGGREGATE_FAMILIES.booked.prefix;

/** A BOOKED# month item's channels (any counter, also one at 0). */
const channelsOfBookedItem = (item: Record<string, unknown>) => keysIn(item, DAY_COUNTERS.channelBookings);

/**
 * The channels stored in the BOOKED# items of these months (`YYYY-MM`), strongly consistent.
 * Operator tooling only: it reads with BatchGetItem, which no function may call.
 */
export async function getStoredChannels(
  propertyId: number,
  months: readonly string[],
): Promise<ChannelsByMonth> {
  const channels: ChannelsByMonth = new Map();
  const keys = months.map((month) => ({ PK: propertyPartition(propertyId), SK: `${BOOKED_PREFIX}${month}` }));
  for (const item of await batchGetAll(keys))
    channels.set(String(item.SK).slice(BOOKED_PREFIX.length), channelsOfBookedItem(item));
  return channels;
}

/** The BOOKED# month item's channels, strongly consistent (one GetItem). */
export async function getChannelsOfMonth(propertyId: number, month: string): Promise<Set<string>> {
  const { Item } = await dynamoDb().send(
    new GetCommand({
      TableName: tableName(),
      Key: { PK: propertyPartition(propertyId), SK: `${BOOKED_PREFIX}${month}` },
      ConsistentRead: true,
    }),
  );
  return Item ? channelsOfBookedItem(Item) : new Set<string>();
}

/** Aggregate items by sort key (`BOOKED#2026-10`), each its counters by attribute (`n01`, `c01:Airbnb`). */
export type AggregateItems = Map<string, Map<string, number>>;

/** Every item of a property's partition whose sort key begins with `prefix`, strongly consistent. */
async function itemsOf(propertyId: number, prefix: string): Promise<Record<string, unknown>[]> {
  return queryAll({
    TableName: tableName(),
    KeyConditionExpression: 'PK = :property AND begins_with(SK, :prefix)',
    ExpressionAttributeValues: { ':property': propertyPartition(propertyId), ':prefix': prefix },
    ConsistentRead: true,
  });
}

/**
 * Everything stored of a property's reservations: the aggregate items as stored (every counter,
 * those at 0 included: a channel's stay in its month), then the reservations. Strongly consistent
 * Queries, page by page: their cost grows with the history, so they are for operators' tooling (the
 * aggregates rebuild, lambdas/data/aggregate-rebuild.ts), never a request's path. The aggregates
 * are read first, so a change committed between the two reads shows in the reservations and not in
 * the counters read: the rebuild's conditional writes rely on that order.
 * What `aggregatesOf(reservations)` returns is what the aggregates should hold.
 */
export async function readStoredAggregates(
  propertyId: number,
): Promise<{ reservations: Reservation[]; aggregates: AggregateItems }> {
  const aggregates: AggregateItems = new Map();
  for (const { prefix } of Object.values(AGGREGATE_FAMILIES))
    for (const { PK: _pk, SK: sk, ...attributes } of await itemsOf(propertyId, prefix))
      aggregates.set(
        String(sk),
        new Map(
          Object.entries(attributes).flatMap(([attribute, value]) =>
            typeof value === 'number' ? [[attribute, value] as const] : [],
          ),
        ),
      );
  const reservations = (await itemsOf(propertyId, RESERVATION_SK_PREFIX)).flatMap(
    (item) => storedReservation(item.reservation) ?? [],
  );
  return { reservations, aggregates };
}
