import type { BatchGetCommandOutput } from '@aws-sdk/lib-dynamodb';
import { BatchGetCommand, GetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { PlatformEventDetail } from '../../core/contract/platform-events';
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
import type { EventSource } from '../../core/event-delivery';
import { OPERATOR_EVENT_SOURCE, PLATFORM_EVENT_SOURCE } from '../../core/event-delivery';
import { propertyPartition } from '../../core/partitions';
import { dynamoDb, GSI1, MAX_TRANSACTION_ITEMS, queryAll, type TransactItem, tableName } from './db';
import type { EventOutcome, StoredVersion } from './event-versions';
import { RefusedEventError, storedVersionsOf, versionAttributes, versionVerdict } from './event-versions';
import { propertyNotErasedCheckItem } from './properties';

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
  /** The version each source last applied, in its own sequence (docs/design/events.md#versions). */
  readonly versions: Readonly<Record<EventSource, StoredVersion>>;
}

function toStoredReservation(item: Record<string, unknown> | undefined): StoredReservation | undefined {
  const reservation = storedReservation(item?.reservation);
  return (
    reservation && { reservation, revision: Number(item?.revision ?? 0), versions: storedVersionsOf(item) }
  );
}

/** What is stored of these reservations of a property, by id (strongly consistent). */
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
        const found = toStoredReservation(item);
        if (found) stored.set(found.reservation.id, found);
      }
      keys = page.UnprocessedKeys?.[tableName()]?.Keys;
    }
  }
  return stored;
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

/** A row of an import whose content differs from what is stored, and the version it gets. */
interface ReservationImportChange {
  readonly reservation: Reservation;
  /**
   * One above the version the operators' imports last applied to the reservation (1 for the first):
   * what its event carries, in the operators' own sequence, never the platform's.
   */
  readonly version: number;
}

/** What an import will publish: decided from what is stored, and checked, before anything is sent. */
export interface ReservationImportPlan {
  readonly propertyId: number;
  readonly changes: readonly ReservationImportChange[];
  /** Rows identical to the stored ones. */
  readonly unchanged: number;
}

/**
 * Reads what is stored for these rows and decides which of them change anything, each with the
 * next version of its reservation in the operators' sequence. Writes nothing. Throws
 * `TooManyChannelsError` when the rows would take a month of the property over
 * `MAX_CHANNELS_PER_MONTH` channels (counting those already stored), so an import that cannot fit
 * is refused before its first event, every time.
 * Operator tooling only: it reads with BatchGetItem, which no function may call.
 */
export async function planReservationImport(
  propertyId: number,
  reservations: readonly Reservation[],
): Promise<ReservationImportPlan> {
  const stored = await getStoredReservations(
    propertyId,
    reservations.map((reservation) => reservation.id),
  );
  const changes: ReservationImportChange[] = [];
  for (const next of reservations) {
    const previous = stored.get(next.id);
    if (!previous || !sameReservation(previous.reservation, next))
      changes.push({
        reservation: next,
        version: (previous?.versions[OPERATOR_EVENT_SOURCE].version ?? 0) + 1,
      });
  }
  const added = channelsBookedByMonth(changes.map((change) => change.reservation));
  const storedChannels = await getStoredChannels(propertyId, [...added.keys()]);
  const breaches = channelCapBreaches(storedChannels, added);
  if (breaches.length > 0) throw new TooManyChannelsError(propertyId, breaches);
  return { propertyId, changes, unchanged: reservations.length - changes.length };
}

/**
 * Channels this instance knows are stored in a property's month (`<property>#<YYYY-MM>`): a channel,
 * once stored in a month, stays there (its counters stay, at 0, when its bookings go), so what is
 * known can only be too little, never wrong. A booking of a known channel needs no read for the cap.
 */
const knownChannels = new Map<string, Set<string>>();
const MAX_KNOWN_MONTHS = 10_000;

function rememberChannels(propertyId: number, month: string, channels: Iterable<string>): void {
  const key = `${propertyId}#${month}`;
  if (!knownChannels.has(key) && knownChannels.size >= MAX_KNOWN_MONTHS) knownChannels.clear();
  const known = knownChannels.get(key) ?? new Set<string>();
  for (const channel of channels) known.add(channel);
  knownChannels.set(key, known);
}

/** The BOOKED# month item's channels, strongly consistent (one GetItem). */
async function getChannelsOfMonth(propertyId: number, month: string): Promise<Set<string>> {
  const { Item } = await dynamoDb().send(
    new GetCommand({
      TableName: tableName(),
      Key: { PK: propertyPartition(propertyId), SK: `BOOKED#${month}` },
      ConsistentRead: true,
    }),
  );
  const channels = Item ? channelsOfBookedItem(Item) : new Set<string>();
  rememberChannels(propertyId, month, channels);
  return channels;
}

const MAX_ATTRIBUTES_PER_ITEM = 150;

/** A reservation change that applies: the reservation as it will be, and what is stored now. */
interface ReservationChange {
  readonly index: number;
  /** Each source's version and fingerprint once it is written: of its last event judged newer. */
  readonly versions: Readonly<Record<EventSource, StoredVersion>>;
  readonly next: Reservation;
  readonly previous?: StoredReservation;
}

function cloneDeltas(deltas: AggregateDeltas): AggregateDeltas {
  return new Map([...deltas].map(([sk, attributes]) => [sk, new Map(attributes)]));
}

/**
 * Groups changes into transactions that fit DynamoDB's limits, each with its reservations, the
 * merged aggregate deltas they cause and the check that the property is not erased (pure;
 * exported for tests).
 */
export function planReservationTransactions<
  T extends { previous?: { reservation: Reservation }; next: Reservation },
>(changes: readonly T[]): T[][] {
  const transactions: T[][] = [];
  let transaction: T[] = [];
  let deltas: AggregateDeltas = new Map();
  for (const change of changes) {
    const candidate = aggregateDeltas(change.previous?.reservation, change.next, cloneDeltas(deltas));
    const fits =
      transaction.length + 1 + candidate.size + 1 <= MAX_TRANSACTION_ITEMS &&
      [...candidate.values()].every((attributes) => attributes.size <= MAX_ATTRIBUTES_PER_ITEM);
    if (fits || transaction.length === 0) {
      transaction.push(change);
      deltas = candidate;
    } else {
      transactions.push(transaction);
      transaction = [change];
      deltas = aggregateDeltas(change.previous?.reservation, change.next);
    }
  }
  if (transaction.length > 0) transactions.push(transaction);
  return transactions;
}

function reservationPutItem(propertyId: number, change: ReservationChange, nowIso: string): TransactItem {
  const { next, previous } = change;
  return {
    Put: {
      TableName: tableName(),
      Item: {
        ...reservationKey(propertyId, next.id),
        reservation: next,
        revision: (previous?.revision ?? 0) + 1,
        ...versionAttributes(change.versions),
        changedAt: nowIso,
        // Only confirmed reservations are in the booked_at index that the edge days read.
        ...(next.status === 'confirmed'
          ? { GSI1PK: bookingsIndexKey(propertyId), GSI1SK: `${next.booked_at}#${next.id}` }
          : {}),
      },
      ConditionExpression: previous ? 'revision = :revision' : 'attribute_not_exists(PK)',
      ...(previous ? { ExpressionAttributeValues: { ':revision': previous.revision } } : {}),
    },
  };
}

async function getStoredReservation(propertyId: number, id: string): Promise<StoredReservation | undefined> {
  const { Item } = await dynamoDb().send(
    new GetCommand({ TableName: tableName(), Key: reservationKey(propertyId, id), ConsistentRead: true }),
  );
  return toStoredReservation(Item);
}

/** One `ReservationChanged` of a property, with its fingerprint and whose sequence its version is in. */
export interface ReservationEvent {
  readonly detail: PlatformEventDetail<'ReservationChanged'>;
  readonly fingerprint: string;
  /** @default the platform's */
  readonly source?: EventSource;
}

/** What applying each event did, or why it never can (`RefusedEventError`). */
export type ReservationResult = EventOutcome | RefusedEventError;

/** One call of `applyReservationChanges`: its events, and what applying each did so far. */
interface ReservationBatch {
  readonly events: readonly ReservationEvent[];
  readonly propertyId: number;
  readonly nowIso: string;
  readonly fresh: boolean;
  /** Filled in as each event is judged, applied or refused, by its index in `events`. */
  readonly results: ReservationResult[];
  /** The indexes of each reservation's events, in order. */
  readonly byReservation: ReadonlyMap<string, readonly number[]>;
}

/** The change to write for a reservation, and the indexes of its events it supersedes. */
interface JudgedChange extends ReservationChange {
  readonly superseded: readonly number[];
}

/** A change refused by the channel cap, with the refusal's words. */
interface OverCap {
  readonly change: JudgedChange;
  readonly refusal: string;
}

/**
 * `ReservationChanged`: the one piece of code that changes a property's reservations and their
 * aggregates (docs/design/events.md#reservations), for one event or several of one property (a
 * batch of the queue). A reservation's events are judged in their order, as if each were applied
 * before the next, each against the version its own source stored (the platform's, or the
 * operators' imports': docs/design/events.md#versions); the last that is newer is written, by a
 * transaction that replaces the reservation and moves the aggregate counters from its old
 * contribution to its new one, on condition that the reservation is still as read and the
 * property not erased. The changes of several reservations share one transaction while they fit
 * DynamoDB's limits (their aggregate deltas merged): each event applies whole or not at all, and a
 * hot property's backlog drains a transaction per batch, not per event. A transaction that loses a
 * race throws, for the caller to try again reading everything. The cost does not depend on the
 * property's history: the reservations named, their booking months and the months of their nights.
 *
 * A first version is written on the assumption that the reservation is new, without reading it
 * (most are: a booking, an import); if it was not, its condition fails and the next attempt
 * (`fresh`) reads it.
 */
export async function applyReservationChanges(
  events: readonly ReservationEvent[],
  propertyId: number,
  nowIso: string,
  fresh = true,
): Promise<ReservationResult[]> {
  const batch: ReservationBatch = {
    events,
    propertyId,
    nowIso,
    fresh,
    results: new Array(events.length),
    byReservation: eventsByReservation(events),
  };
  const judged = await Promise.all(
    [...batch.byReservation].map(([id, indexes]) => judgeReservationEvents(batch, id, indexes)),
  );
  const changes = judged.filter((change) => change !== undefined).sort((a, b) => a.index - b.index);
  const { applicable, refusedByCap } = await withinChannelCap(batch, changes);
  await writeReservationChanges(batch, applicable);
  await applyOverCapOneByOne(batch, refusedByCap);
  return batch.results;
}

/** The indexes of each reservation's events, in their order. */
function eventsByReservation(events: readonly ReservationEvent[]): Map<string, number[]> {
  const byReservation = new Map<string, number[]>();
  events.forEach(({ detail }, index) => {
    byReservation.set(detail.reservation.id, [...(byReservation.get(detail.reservation.id) ?? []), index]);
  });
  return byReservation;
}

/**
 * A reservation's events judged in order as if each were applied before the next: the last that is
 * newer is the change to write; those it supersedes count as applied when it is. The others get
 * their verdict (a duplicate, an older version) or refusal in `results` now.
 */
async function judgeReservationEvents(
  batch: ReservationBatch,
  id: string,
  indexes: readonly number[],
): Promise<JudgedChange | undefined> {
  const { events, propertyId, results } = batch;
  const entity = `reservation "${id}" of property ${propertyId}`;
  const needsRead = batch.fresh || indexes.some((index) => (events[index]?.detail.version ?? 0) > 1);
  const previous = needsRead ? await getStoredReservation(propertyId, id) : undefined;
  // Each event is judged against its own source's sequence only; across sources, the later stands.
  const stored = { ...(previous?.versions ?? storedVersionsOf(undefined)) };
  const newer: number[] = [];
  for (const index of indexes) {
    const { detail, fingerprint, source = PLATFORM_EVENT_SOURCE } = events[index] as ReservationEvent;
    const named = source === PLATFORM_EVENT_SOURCE ? entity : `${entity} (${source})`;
    try {
      const verdict = versionVerdict(stored[source], detail.version, fingerprint, named);
      if (verdict !== 'newer') results[index] = verdict;
      else {
        newer.push(index);
        stored[source] = { version: detail.version, eventFingerprint: fingerprint };
      }
    } catch (error) {
      if (!(error instanceof RefusedEventError)) throw error;
      results[index] = error;
    }
  }
  const last = newer.pop();
  if (last === undefined) return undefined;
  const { detail } = events[last] as ReservationEvent;
  return {
    index: last,
    versions: stored,
    next: { ...detail.reservation, property_id: propertyId },
    ...(previous ? { previous } : {}),
    superseded: newer,
  };
}

/** The channel cap, with the channels each change adds to its month counted for the next. */
async function withinChannelCap(
  batch: ReservationBatch,
  changes: readonly JudgedChange[],
): Promise<{ applicable: JudgedChange[]; refusedByCap: OverCap[] }> {
  const { propertyId, fresh } = batch;
  const applicable: JudgedChange[] = [];
  const refusedByCap: OverCap[] = [];
  const addedChannels: ChannelsByMonth = new Map();
  for (const change of changes) {
    const added = contributionOf(change.next);
    const before = change.previous && contributionOf(change.previous.reservation);
    const month = added && monthOf(added.bookedDay);
    const sameMonthAndChannel =
      before !== undefined &&
      added !== undefined &&
      before.channel === added.channel &&
      monthOf(before.bookedDay) === month;
    if (
      added &&
      month &&
      !sameMonthAndChannel &&
      !knownChannels.get(`${propertyId}#${month}`)?.has(added.channel)
    ) {
      if (fresh) knownChannels.delete(`${propertyId}#${month}`);
      const stored =
        knownChannels.get(`${propertyId}#${month}`) ?? (await getChannelsOfMonth(propertyId, month));
      const adding = addedChannels.get(month) ?? new Set<string>();
      const breaches = channelCapBreaches(
        new Map([[month, new Set([...stored, ...adding])]]),
        new Map([[month, new Set([added.channel])]]),
      );
      if (breaches.length > 0) {
        refusedByCap.push({ change, refusal: new TooManyChannelsError(propertyId, breaches).overCap });
        continue;
      }
      addedChannels.set(month, adding.add(added.channel));
    }
    applicable.push(change);
  }
  return { applicable, refusedByCap };
}

/**
 * Writes the changes, as many to a transaction as fit. A transaction whose condition fails (someone
 * changed one of its reservations meanwhile, or the property was erased) throws: the caller's next
 * attempt reads again, and finds what the transactions before it applied to be duplicates.
 */
async function writeReservationChanges(
  batch: ReservationBatch,
  changes: readonly JudgedChange[],
): Promise<void> {
  const { propertyId, nowIso, results } = batch;
  for (const transaction of planReservationTransactions(changes)) {
    const deltas: AggregateDeltas = new Map();
    for (const change of transaction) aggregateDeltas(change.previous?.reservation, change.next, deltas);
    await dynamoDb().send(
      new TransactWriteCommand({
        TransactItems: [
          ...transaction.map((change) => reservationPutItem(propertyId, change, nowIso)),
          ...[...deltas].map(([sk, attributes]) => aggregateUpdateItem(propertyId, sk, attributes)),
          propertyNotErasedCheckItem(propertyId),
        ],
      }),
    );
    for (const change of transaction) {
      for (const index of [...change.superseded, change.index]) results[index] = 'applied';
      const added = contributionOf(change.next);
      if (added) rememberChannels(propertyId, monthOf(added.bookedDay), [added.channel]);
    }
  }
}

/**
 * A change over the channel cap: its reservation's events one by one, in order (an earlier one
 * may fit), each reading what is stored and checking the cap itself.
 */
async function applyOverCapOneByOne(
  batch: ReservationBatch,
  refusedByCap: readonly OverCap[],
): Promise<void> {
  const { events, propertyId, nowIso, results } = batch;
  for (const { change, refusal } of refusedByCap) {
    const indexes = batch.byReservation.get(change.next.id) ?? [];
    if (indexes.length === 1) results[change.index] = new RefusedEventError(refusal);
    else
      for (const index of indexes) {
        const [alone] = await applyReservationChanges(
          [events[index] as ReservationEvent],
          propertyId,
          nowIso,
          true,
        );
        if (alone !== undefined) results[index] = alone;
      }
  }
}

/** One `ReservationChanged`: what `applyReservationChanges` does for a group of one. */
export async function applyReservationChange(
  event: ReservationEvent,
  propertyId: number,
  nowIso: string,
  fresh = true,
): Promise<EventOutcome> {
  const [result] = await applyReservationChanges([event], propertyId, nowIso, fresh);
  if (result instanceof RefusedEventError) throw result;
  return result ?? 'applied';
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
