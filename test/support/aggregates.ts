import { aggregatesOf } from '../../lambdas/data/reservations/apply';
import type { AggregateItems } from '../../lambdas/data/reservations/stored';
import { readStoredAggregates } from '../../lambdas/data/reservations/stored';

type PlainAggregates = Record<string, Record<string, number>>;

/** Aggregate items as plain objects, counters at 0 left out (they read as none), items left empty too. */
function plain(items: AggregateItems): PlainAggregates {
  const result: PlainAggregates = {};
  for (const [sk, counters] of items) {
    const nonZero = [...counters].filter(([, value]) => value !== 0);
    if (nonZero.length > 0) result[sk] = Object.fromEntries(nonZero);
  }
  return result;
}

/** A property's stored aggregate items, and what its stored reservations add up to (`aggregatesOf`). */
export async function aggregatesOfProperty(
  propertyId: number,
): Promise<{ stored: PlainAggregates; ofReservations: PlainAggregates }> {
  const { reservations, aggregates } = await readStoredAggregates(propertyId);
  return { stored: plain(aggregates), ofReservations: plain(aggregatesOf(reservations)) };
}
