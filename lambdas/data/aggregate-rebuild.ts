import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { propertyPartition } from '../../core/partitions';
import { isRetryableCancellation, transactionCancellationCodes } from '../common/aws-errors';
import { dynamoDb, type TransactItem, tableName } from './db';
import { getPropertyAnchor, propertyReservationsUnchangedCheckItem } from './properties';
import { aggregatesOf } from './reservations/apply';
import type { AggregateItems } from './reservations/stored';
import { readStoredAggregates } from './reservations/stored';

/*
 * Rebuilding a property's per-day aggregates (BOOKED#, NIGHTS#) from its stored reservations: what
 * the data migration `rebuild-reservation-aggregates` does for each property
 * (docs/design/data-migrations.md). Operator tooling only.
 *
 * Safe beside the platform's events, which change a reservation and its aggregates in one
 * transaction that also counts the change on the property's own item
 * (`propertyReservationsChangedItem`): the rebuild reads that count first, then the aggregates and
 * the reservations, and writes on condition that the count did not move (and each counter still
 * holds the value read). A change committed anywhere between the first read and the write refuses
 * the write, and the property is read again; one committed after the write finds counters that
 * agree with the reservations it changes. (Conditions on the counters alone would let a change and
 * its undo, a booking and its cancellation, pass unseen between the reads.)
 */

/** A counter to write: its value as read (undefined: absent) and as the reservations say. */
interface CounterFix {
  readonly attribute: string;
  readonly stored: number | undefined;
  readonly rebuilt: number;
}

/** Counters one write names at most: each costs a name, a value and a condition in its expressions (4 KB each). */
const COUNTERS_PER_WRITE = 40;
/** Attempts at a property whose reservations keep changing, each after a longer pause (0.2, 0.4, 0.8, 1.6 s, jittered). */
const ATTEMPTS = 5;
const BACKOFF_MS = 100;

/** The counters whose stored value differs from the rebuilt one, per item. */
function fixesOf(stored: AggregateItems, rebuilt: AggregateItems): Map<string, CounterFix[]> {
  const fixes = new Map<string, CounterFix[]>();
  for (const sk of new Set([...stored.keys(), ...rebuilt.keys()])) {
    const storedCounters = stored.get(sk) ?? new Map<string, number>();
    const rebuiltCounters = rebuilt.get(sk) ?? new Map<string, number>();
    const item: CounterFix[] = [];
    for (const attribute of new Set([...storedCounters.keys(), ...rebuiltCounters.keys()])) {
      const value = storedCounters.get(attribute);
      const should = rebuiltCounters.get(attribute) ?? 0;
      if ((value ?? 0) !== should) item.push({ attribute, stored: value, rebuilt: should });
    }
    if (item.length > 0) fixes.set(sk, item);
  }
  return fixes;
}

/** One write of some counters of one item, each on condition that it still holds what was read. */
function fixItem(propertyId: number, sk: string, fixes: readonly CounterFix[]): TransactItem {
  const names = Object.fromEntries(fixes.map((fix, index) => [`#c${index}`, fix.attribute]));
  const values: Record<string, number> = {};
  const conditions = fixes.map((fix, index) => {
    values[`:v${index}`] = fix.rebuilt;
    if (fix.stored === undefined) return `attribute_not_exists(#c${index})`;
    values[`:s${index}`] = fix.stored;
    return `#c${index} = :s${index}`;
  });
  return {
    Update: {
      TableName: tableName(),
      Key: { PK: propertyPartition(propertyId), SK: sk },
      UpdateExpression: `SET ${fixes.map((_, index) => `#c${index} = :v${index}`).join(', ')}`,
      ConditionExpression: conditions.join(' AND '),
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
    },
  };
}

/** What a rebuild found: the property's state, and each counter it changed (or would). */
export interface AggregateRebuild {
  readonly property: 'rebuilt' | 'absent' | 'erased';
  readonly fixes: ReadonlyMap<string, readonly CounterFix[]>;
}

/**
 * Rebuilds one property's aggregates from its stored reservations: reads both, and writes the
 * counters that differ (nothing with `dryRun`). An erased or unknown property is left alone.
 */
export async function rebuildPropertyAggregates(
  propertyId: number,
  dryRun: boolean,
): Promise<AggregateRebuild> {
  for (let attempt = 1; ; attempt++) {
    const anchor = await getPropertyAnchor(propertyId);
    if (!anchor) return { property: 'absent', fixes: new Map() };
    if (anchor.erasedAt !== undefined) return { property: 'erased', fixes: new Map() };
    const { aggregates, reservations } = await readStoredAggregates(propertyId);
    const fixes = fixesOf(aggregates, aggregatesOf(reservations));
    if (dryRun || fixes.size === 0) return { property: 'rebuilt', fixes };
    try {
      await writeFixes(propertyId, fixes, anchor.reservationChanges);
      return { property: 'rebuilt', fixes };
    } catch (error) {
      // Its reservations changed since the count was read (an event applied), or it was erased: read again.
      const refused = transactionCancellationCodes(error)?.includes('ConditionalCheckFailed');
      if (!(refused || isRetryableCancellation(error))) throw error;
      if (attempt >= ATTEMPTS) throw new PropertyBusyError(propertyId);
      await new Promise((resolve) => setTimeout(resolve, BACKOFF_MS * 2 ** attempt * (0.5 + Math.random())));
    }
  }
}

/** A property whose reservations changed during every attempt: the migration stops there, to be run again. */
class PropertyBusyError extends Error {
  constructor(propertyId: number) {
    super(
      `Property ${propertyId}'s reservations changed during each of ${ATTEMPTS} attempts to rebuild its aggregates; ` +
        'it is busy: run again in a few minutes.',
    );
    this.name = 'PropertyBusyError';
  }
}

async function writeFixes(
  propertyId: number,
  fixes: ReadonlyMap<string, readonly CounterFix[]>,
  reservationChanges: number | undefined,
): Promise<void> {
  for (const [sk, item] of fixes)
    for (let start = 0; start < item.length; start += COUNTERS_PER_WRITE)
      await dynamoDb().send(
        new TransactWriteCommand({
          TransactItems: [
            fixItem(propertyId, sk, item.slice(start, start + COUNTERS_PER_WRITE)),
            propertyReservationsUnchangedCheckItem(propertyId, reservationChanges),
          ],
        }),
      );
}
