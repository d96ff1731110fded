import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { PlatformEventDetail } from '../../../core/contract/platform-events';
import { monthOf } from '../../../core/domain/calendar';
import type { ChannelsByMonth, Reservation } from '../../../core/domain/reservations';
import { channelCapBreaches, contributionOf, TooManyChannelsError } from '../../../core/domain/reservations';
import type { EventSource } from '../../../core/event-delivery';
import { PLATFORM_EVENT_SOURCE } from '../../../core/event-delivery';
import { propertyPartition } from '../../../core/partitions';
import { dynamoDb, MAX_TRANSACTION_ITEMS, type TransactItem, tableName } from '../db';
import type { EventOutcome, StoredVersion } from '../event-versions';
import { RefusedEventError, storedVersionsOf, versionAttributes, versionVerdict } from '../event-versions';
import { propertyReservationsChangedItem } from '../properties';
import { bookingsIndexKey, forEachCounterOf, reservationKey } from './layout';
import type { AggregateItems, StoredReservation } from './stored';
import { getChannelsOfMonth, getStoredReservation } from './stored';

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

/** What replacing `previous` by `next` does to the aggregates (either may be absent). */
export function aggregateDeltas(
  previous: Reservation | undefined,
  next: Reservation | undefined,
  into: AggregateDeltas = new Map(),
): AggregateDeltas {
  const before = previous && contributionOf(previous);
  const after = next && contributionOf(next);
  if (before) forEachCounterOf(before, (sk, attribute, value) => addDelta(into, sk, attribute, -value));
  if (after) forEachCounterOf(after, (sk, attribute, value) => addDelta(into, sk, attribute, value));
  return into;
}

/**
 * The aggregate items these reservations of one property make, absolute: sort key -> attribute ->
 * value, with no attribute at 0 and no item without one. The stored items, once their counters
 * at 0 are left out, must be exactly this (`readStoredAggregates` reads both sides).
 */
export function aggregatesOf(reservations: Iterable<Reservation>): AggregateItems {
  const aggregates: AggregateDeltas = new Map();
  for (const reservation of reservations) aggregateDeltas(undefined, reservation, aggregates);
  return aggregates;
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

/**
 * Channels this instance knows are stored in a property's month (`<property>#<YYYY-MM>`): a channel,
 * once stored in a month, stays there (its counters stay, at 0, when its bookings go), so what is
 * known can only be too little, never wrong. A booking of a known channel needs no read for the cap;
 * one of a channel not known here reads the month, since other instances may have stored more.
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

/** The BOOKED# month item's channels, strongly consistent, remembered for the next change. */
async function readChannelsOfMonth(propertyId: number, month: string): Promise<Set<string>> {
  const channels = await getChannelsOfMonth(propertyId, month);
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
  const { propertyId } = batch;
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
      // A channel this instance has not seen in the month: what it knows may be only part of what
      // is stored (other instances applied the month's other bookings), so the cap is judged on a
      // strongly consistent read, never on the remembered part.
      const stored = await readChannelsOfMonth(propertyId, month);
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
          propertyReservationsChangedItem(propertyId),
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
