import type { BatchGetCommandOutput } from '@aws-sdk/lib-dynamodb';
import { BatchGetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { dayOfMonth, isoDate, monthOf, parseIsoDate } from '../../core/domain/calendar';
import type { BookingTotals, BookingWindow } from '../../core/domain/pricing-signals';
import { addBookingTotals, emptyBookingTotals, OCCUPANCY_NIGHTS } from '../../core/domain/pricing-signals';
import type { ChannelsByMonth, Reservation, ReservationContribution } from '../../core/domain/reservations';
import {
  channelCapBreaches,
  channelsBookedByMonth,
  contributionOf,
  sameReservation,
  storedReservation,
  TooManyChannelsError,
} from '../../core/domain/reservations';
import { propertyPartition } from '../../core/partitions';
import { isRetryableCancellation, transactionCancellationCodes } from '../common/aws-errors';
import { pauseBeforeRetry } from '../common/backoff';
import { dynamoDb, GSI1, queryAll, type TransactItem, tableName } from './db';

/*
 * A property's partition holds its reservations (RES#<id>) and two families of per-month
 * aggregate items, each with one counter attribute per day of the month:
 *   BOOKED#YYYY-MM  n<dd> count, l<dd> lead-days sum, s<dd> stay-nights sum, c<dd>:<channel> count,
 *                   for confirmed reservations booked on that day;
 *   NIGHTS#YYYY-MM  o<dd> reservations occupying that night.
 * Signals read at most 13 + 2 aggregate items whatever the history, plus the reservations booked
 * on the two partial days at the window's edges (through GSI1, ordered by booked_at).
 */
const reservationKey = (propertyId: number, reservationId: string) => ({
  PK: propertyPartition(propertyId),
  SK: `RES#${reservationId}`,
});
const bookingsIndexKey = (propertyId: number) => `${propertyPartition(propertyId)}#BOOKINGS`;
const bookedMonthSk = (day: number) => `BOOKED#${monthOf(day)}`;
const nightsMonthSk = (day: number) => `NIGHTS#${monthOf(day)}`;
const countAttribute = (day: number) => `n${dayOfMonth(day)}`;
const leadAttribute = (day: number) => `l${dayOfMonth(day)}`;
const stayAttribute = (day: number) => `s${dayOfMonth(day)}`;
const channelAttribute = (day: number, channel: string) => `c${dayOfMonth(day)}:${channel}`;
const nightAttributeOf = (isoDay: string) => `o${isoDay.slice(8, 10)}`;
const nightAttribute = (night: number) => nightAttributeOf(isoDate(night));
/**
 * An attribute of a BOOKED# item: kind, day of month and, for `c`, the channel. `[\s\S]`, not
 * `.`: a channel is any text, and `.` stops at U+2028 and U+2029.
 */
const BOOKED_ATTRIBUTE = /^([nlsc])(\d{2})(?::([\s\S]*))?$/;

/** Changes to aggregate counters: sort key of the month item -> attribute -> delta. */
export type AggregateDeltas = Map<string, Map<string, number>>;

function addDelta(deltas: AggregateDeltas, sk: string, attribute: string, delta: number): void {
  if (delta === 0) return;
  let item = deltas.get(sk);
  if (!item) {
    item = new Map();
    deltas.set(sk, item);
  }
  const total = (item.get(attribute) ?? 0) + delta;
  if (total === 0) item.delete(attribute);
  else item.set(attribute, total);
  if (item.size === 0) deltas.delete(sk);
}

function addContribution(deltas: AggregateDeltas, contribution: ReservationContribution, sign: 1 | -1): void {
  const { bookedDay } = contribution;
  const bookedSk = bookedMonthSk(bookedDay);
  addDelta(deltas, bookedSk, countAttribute(bookedDay), sign);
  addDelta(deltas, bookedSk, leadAttribute(bookedDay), sign * contribution.leadDays);
  addDelta(deltas, bookedSk, stayAttribute(bookedDay), sign * contribution.stayNights);
  addDelta(deltas, bookedSk, channelAttribute(bookedDay, contribution.channel), sign);
  for (let night = contribution.firstNight; night < contribution.endNight; night++) {
    addDelta(deltas, nightsMonthSk(night), nightAttribute(night), sign);
  }
}

/** What replacing `previous` by `next` does to the aggregates (either may be absent). */
export function aggregateDeltas(
  previous: Reservation | undefined,
  next: Reservation | undefined,
  into: AggregateDeltas = new Map(),
): AggregateDeltas {
  const before = previous && contributionOf(previous);
  const after = next && contributionOf(next);
  if (before) addContribution(into, before, -1);
  if (after) addContribution(into, after, 1);
  return into;
}

interface StoredReservation {
  readonly reservation: Reservation;
  readonly revision: number;
}

interface ReservationChange {
  readonly previous?: StoredReservation;
  readonly next: Reservation;
}

/** DynamoDB allows 100 actions per transaction; an aggregate item's ADD list stays short. */
const MAX_TRANSACTION_ITEMS = 100;
const MAX_ATTRIBUTES_PER_ITEM = 150;

/** Groups changes into transactions that fit DynamoDB's limits (pure; exported for tests). */
export function planImportBatches<T extends { previous?: { reservation: Reservation }; next: Reservation }>(
  changes: readonly T[],
): T[][] {
  const batches: T[][] = [];
  let batch: T[] = [];
  let deltas: AggregateDeltas = new Map();
  for (const change of changes) {
    const candidate = aggregateDeltas(change.previous?.reservation, change.next, cloneDeltas(deltas));
    const fits =
      batch.length + 1 + candidate.size <= MAX_TRANSACTION_ITEMS &&
      [...candidate.values()].every((attributes) => attributes.size <= MAX_ATTRIBUTES_PER_ITEM);
    if (fits || batch.length === 0) {
      batch.push(change);
      deltas = candidate;
    } else {
      batches.push(batch);
      batch = [change];
      deltas = aggregateDeltas(change.previous?.reservation, change.next);
    }
  }
  if (batch.length > 0) batches.push(batch);
  return batches;
}

function cloneDeltas(deltas: AggregateDeltas): AggregateDeltas {
  return new Map([...deltas].map(([sk, attributes]) => [sk, new Map(attributes)]));
}

async function getStoredReservations(
  propertyId: number,
  ids: readonly string[],
): Promise<Map<string, StoredReservation>> {
  const stored = new Map<string, StoredReservation>();
  for (let start = 0; start < ids.length; start += 100) {
    let keys: Record<string, unknown>[] | undefined = ids
      .slice(start, start + 100)
      .map((id) => reservationKey(propertyId, id));
    while (keys && keys.length > 0) {
      const page: BatchGetCommandOutput = await dynamoDb().send(
        new BatchGetCommand({ RequestItems: { [tableName()]: { Keys: keys, ConsistentRead: true } } }),
      );
      for (const item of page.Responses?.[tableName()] ?? []) {
        const reservation = storedReservation(item.reservation);
        if (reservation) stored.set(reservation.id, { reservation, revision: Number(item.revision) });
      }
      keys = page.UnprocessedKeys?.[tableName()]?.Keys;
    }
  }
  return stored;
}

function reservationPutItem(propertyId: number, change: ReservationChange, nowIso: string): TransactItem {
  const { next, previous } = change;
  const revision = (previous?.revision ?? 0) + 1;
  const confirmed = next.status === 'confirmed';
  return {
    Put: {
      TableName: tableName(),
      Item: {
        ...reservationKey(propertyId, next.id),
        reservation: next,
        revision,
        importedAt: nowIso,
        // Only confirmed reservations are in the booked_at index that the edge days read.
        ...(confirmed
          ? { GSI1PK: bookingsIndexKey(propertyId), GSI1SK: `${next.booked_at}#${next.id}` }
          : {}),
      },
      ConditionExpression: previous ? 'revision = :revision' : 'attribute_not_exists(PK)',
      ...(previous ? { ExpressionAttributeValues: { ':revision': previous.revision } } : {}),
    },
  };
}

function aggregateUpdateItem(propertyId: number, sk: string, attributes: Map<string, number>): TransactItem {
  const entries = [...attributes];
  return {
    Update: {
      TableName: tableName(),
      Key: { PK: propertyPartition(propertyId), SK: sk },
      UpdateExpression: `ADD ${entries.map((_, index) => `#a${index} :a${index}`).join(', ')}`,
      ExpressionAttributeNames: Object.fromEntries(entries.map(([name], index) => [`#a${index}`, name])),
      ExpressionAttributeValues: Object.fromEntries(entries.map(([, delta], index) => [`:a${index}`, delta])),
    },
  };
}

const MAX_BATCH_ATTEMPTS = 3;

/** What an import will write: decided from what is stored, and checked, before any write. */
export interface ReservationImportPlan {
  readonly propertyId: number;
  readonly changes: readonly ReservationChange[];
  /** Rows identical to the stored ones. */
  readonly unchanged: number;
}

/** The channels stored in the BOOKED# items of these months (any counter, also one at 0). */
async function getStoredChannels(propertyId: number, months: readonly string[]): Promise<ChannelsByMonth> {
  const channels: ChannelsByMonth = new Map();
  for (let start = 0; start < months.length; start += 100) {
    let keys: Record<string, unknown>[] | undefined = months
      .slice(start, start + 100)
      .map((month) => ({ PK: propertyPartition(propertyId), SK: `BOOKED#${month}` }));
    while (keys && keys.length > 0) {
      const page: BatchGetCommandOutput = await dynamoDb().send(
        new BatchGetCommand({ RequestItems: { [tableName()]: { Keys: keys, ConsistentRead: true } } }),
      );
      for (const item of page.Responses?.[tableName()] ?? []) {
        channels.set(String(item.SK).slice('BOOKED#'.length), channelsOfBookedItem(item));
      }
      keys = page.UnprocessedKeys?.[tableName()]?.Keys;
    }
  }
  return channels;
}

function channelsOfBookedItem(item: Record<string, unknown>): Set<string> {
  const channels = new Set<string>();
  for (const attribute of Object.keys(item)) {
    const channel = BOOKED_ATTRIBUTE.exec(attribute)?.[3];
    if (channel !== undefined) channels.add(channel);
  }
  return channels;
}

/**
 * Reads what is stored for these rows and decides what importing them changes. Writes nothing.
 * Throws `TooManyChannelsError` when the import would take a month of the property over
 * `MAX_CHANNELS_PER_MONTH` channels (counting those already stored), so an import that cannot
 * fit DynamoDB's item limit is refused before its first write, every time it is tried.
 */
export async function planReservationImport(
  propertyId: number,
  reservations: readonly Reservation[],
): Promise<ReservationImportPlan> {
  const stored = await getStoredReservations(
    propertyId,
    reservations.map((reservation) => reservation.id),
  );
  const changes: ReservationChange[] = [];
  for (const next of reservations) {
    const previous = stored.get(next.id);
    if (!previous || !sameReservation(previous.reservation, next)) changes.push({ previous, next });
  }
  const added = channelsBookedByMonth(changes.map((change) => change.next));
  const storedChannels = await getStoredChannels(propertyId, [...added.keys()]);
  const breaches = channelCapBreaches(storedChannels, added);
  if (breaches.length > 0) throw new TooManyChannelsError(propertyId, breaches);
  return { propertyId, changes, unchanged: reservations.length - changes.length };
}

/**
 * Writes a plan: each transaction writes reservations together with the aggregate changes they
 * cause, so the aggregates never disagree with the stored reservations. A row another import
 * changed meanwhile is rebased on what is stored then.
 */
export async function writeReservationImport(
  plan: ReservationImportPlan,
  nowMs: number,
): Promise<{ imported: number; unchanged: number }> {
  const { propertyId } = plan;
  const nowIso = new Date(nowMs).toISOString();
  let imported = 0;
  let unchanged = plan.unchanged;
  for (let batch of planImportBatches(plan.changes)) {
    for (let attempt = 1; ; attempt++) {
      const deltas: AggregateDeltas = new Map();
      for (const change of batch) aggregateDeltas(change.previous?.reservation, change.next, deltas);
      const items = [
        ...batch.map((change) => reservationPutItem(propertyId, change, nowIso)),
        ...[...deltas].map(([sk, attributes]) => aggregateUpdateItem(propertyId, sk, attributes)),
      ];
      try {
        await dynamoDb().send(new TransactWriteCommand({ TransactItems: items }));
        imported += batch.length;
        break;
      } catch (error) {
        if (attempt === MAX_BATCH_ATTEMPTS) throw error;
        if (isRetryableCancellation(error)) {
          // Contention or throttling: nothing of this batch was written; try it again shortly.
          await pauseBeforeRetry(attempt, 50);
          continue;
        }
        if (!transactionCancellationCodes(error)?.includes('ConditionalCheckFailed')) throw error;
        // Another import changed some of these rows meanwhile: rebase the batch on what is stored now.
        const current = await getStoredReservations(
          propertyId,
          batch.map((change) => change.next.id),
        );
        const rebased: ReservationChange[] = [];
        for (const change of batch) {
          const previous = current.get(change.next.id);
          if (previous && sameReservation(previous.reservation, change.next)) unchanged++;
          else rebased.push({ previous, next: change.next });
        }
        batch = rebased;
        if (batch.length === 0) break;
      }
    }
  }
  return { imported, unchanged };
}

/**
 * Imports reservations of one property, idempotently by id: an identical row changes nothing,
 * a changed row (a cancellation, new dates) replaces the stored one and moves its counts.
 * Refused (`TooManyChannelsError`) before any write when a month would get too many channels.
 */
export async function importReservations(
  propertyId: number,
  reservations: readonly Reservation[],
  nowMs: number,
): Promise<{ imported: number; unchanged: number }> {
  return writeReservationImport(await planReservationImport(propertyId, reservations), nowMs);
}

function sumBookedMonth(
  item: Record<string, unknown>,
  month: string,
  firstDay: number,
  lastDay: number,
  into: BookingTotals,
): void {
  // Parsed once per month item; each attribute then only adds its day of the month.
  const monthStart = parseIsoDate(`${month}-01`);
  if (monthStart === undefined) return;
  for (const [attribute, value] of Object.entries(item)) {
    const match = BOOKED_ATTRIBUTE.exec(attribute);
    if (!match || typeof value !== 'number') continue;
    const day = monthStart + Number(match[2]) - 1;
    if (day < firstDay || day > lastDay) continue;
    if (match[1] === 'n') into.count += value;
    else if (match[1] === 'l') into.leadDaysSum += value;
    else if (match[1] === 's') into.stayNightsSum += value;
    else if (match[3] !== undefined)
      into.byChannel.set(match[3], (into.byChannel.get(match[3]) ?? 0) + value);
  }
}

/**
 * Inputs of the pricing signals for a window: booking totals (whole days from the monthly
 * aggregates, the two partial edge days from the reservations booked on them) and the
 * occupied units of the 30 nights from today.
 */
export async function readPricingInputs(
  propertyId: number,
  window: BookingWindow,
  today: number,
): Promise<{ bookings: BookingTotals; occupiedUnits: Map<number, number> }> {
  const partition = propertyPartition(propertyId);
  const wholeDays = window.firstWholeDay <= window.lastWholeDay;
  const [bookedMonths, nightMonths, ...edges] = await Promise.all([
    wholeDays
      ? queryAll({
          TableName: tableName(),
          KeyConditionExpression: 'PK = :property AND SK BETWEEN :from AND :to',
          ExpressionAttributeValues: {
            ':property': partition,
            ':from': bookedMonthSk(window.firstWholeDay),
            ':to': bookedMonthSk(window.lastWholeDay),
          },
        })
      : Promise.resolve([]),
    queryAll({
      TableName: tableName(),
      KeyConditionExpression: 'PK = :property AND SK BETWEEN :from AND :to',
      ExpressionAttributeValues: {
        ':property': partition,
        ':from': nightsMonthSk(today),
        ':to': nightsMonthSk(today + OCCUPANCY_NIGHTS - 1),
      },
    }),
    ...window.edges.map((edge) =>
      queryAll({
        TableName: tableName(),
        IndexName: GSI1,
        KeyConditionExpression: 'GSI1PK = :bookings AND GSI1SK BETWEEN :from AND :to',
        ExpressionAttributeValues: {
          ':bookings': bookingsIndexKey(propertyId),
          ':from': new Date(edge.fromMs).toISOString(),
          ':to': `${new Date(edge.toMs).toISOString()}#\uffff`,
        },
        ProjectionExpression: 'reservation',
      }),
    ),
  ]);

  const bookings = emptyBookingTotals();
  for (const item of bookedMonths) {
    sumBookedMonth(
      item,
      String(item.SK).slice('BOOKED#'.length),
      window.firstWholeDay,
      window.lastWholeDay,
      bookings,
    );
  }
  for (const item of edges.flat()) {
    const reservation = storedReservation(item.reservation);
    const contribution = reservation ? contributionOf(reservation) : undefined;
    if (!contribution) continue;
    addBookingTotals(bookings, {
      count: 1,
      leadDaysSum: contribution.leadDays,
      stayNightsSum: contribution.stayNights,
      byChannel: new Map([[contribution.channel, 1]]),
    });
  }

  const occupiedUnits = new Map<number, number>();
  const nightsByMonth = new Map(nightMonths.map((item) => [String(item.SK).slice('NIGHTS#'.length), item]));
  for (let night = today; night < today + OCCUPANCY_NIGHTS; night++) {
    const date = isoDate(night); // YYYY-MM-DD, formatted once per night
    const value = nightsByMonth.get(date.slice(0, 7))?.[nightAttributeOf(date)];
    occupiedUnits.set(night, typeof value === 'number' ? value : 0);
  }
  return { bookings, occupiedUnits };
}
