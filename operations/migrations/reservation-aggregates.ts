import { rebuildPropertyAggregates } from '../../lambdas/data/aggregate-rebuild';
import { lastAllocatedId } from '../../lambdas/data/counters';
import type { DayCounter } from '../../lambdas/data/reservations/layout';
import { DAY_COUNTERS } from '../../lambdas/data/reservations/layout';
import type { Migration, MigrationUnit } from './migration';

/**
 * The declared counters, as the revision of the rebuild (`booked.n:bookings,…`, a counter's own
 * revision after `@`): a counter added, or one whose revision was raised, runs the rebuild again.
 */
const COUNTERS_REVISION = Object.entries(DAY_COUNTERS as Record<string, DayCounter>)
  .map(
    ([name, counter]) =>
      `${counter.family}.${counter.letter}:${name}${(counter.revision ?? 1) > 1 ? `@${counter.revision}` : ''}`,
  )
  .join(',');

/** Counters a change line names before it says how many more there are. */
const NAMED_COUNTERS = 4;

/**
 * Rebuilds every property's per-day aggregates from its stored reservations: what a new counter,
 * or one that now adds something else (its `revision` raised), needs for the reservations stored
 * before it. Units are the properties, by id, up to the highest
 * id given out when the run reaches it (properties made during the run are built with today's
 * counters anyway). Its revision is the declared counters (`DAY_COUNTERS`, by name and letter): a
 * counter added there runs it again on every stage, with nothing to add by hand.
 */
export function reservationAggregatesMigration(id: number): Migration {
  return {
    id,
    name: 'rebuild-reservation-aggregates',
    summary: "Rebuild each property's booking and night aggregates from its stored reservations",
    revision: COUNTERS_REVISION,
    async *units(cursor, dryRun) {
      const last = await lastAllocatedId('property');
      for (let propertyId = Number(cursor ?? 0) + 1; propertyId <= last; propertyId++)
        yield await propertyUnit(propertyId, dryRun);
    },
  };
}

async function propertyUnit(propertyId: number, dryRun: boolean): Promise<MigrationUnit> {
  const { fixes } = await rebuildPropertyAggregates(propertyId, dryRun);
  const changes = [...fixes].map(([sk, counters]) => {
    const named = counters
      .slice(0, NAMED_COUNTERS)
      .map((fix) => `${fix.attribute} ${fix.stored ?? 0} → ${fix.rebuilt}`)
      .join(', ');
    const more = counters.length > NAMED_COUNTERS ? ` and ${counters.length - NAMED_COUNTERS} more` : '';
    return `${sk}: ${named}${more}`;
  });
  return { cursor: String(propertyId), label: `property ${propertyId}`, changes };
}
