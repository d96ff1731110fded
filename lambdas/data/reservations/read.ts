import { isoDate, parseIsoDate } from '../../../core/domain/calendar';
import type { BookingTotals, BookingWindow } from '../../../core/domain/pricing-signals';
import { emptyBookingTotals, OCCUPANCY_NIGHTS } from '../../../core/domain/pricing-signals';
import { contributionOf, storedReservation } from '../../../core/domain/reservations';
import { propertyPartition } from '../../../core/partitions';
import { GSI1, queryAll, tableName } from '../db';
import {
  AGGREGATE_FAMILIES,
  addContributionToTotals,
  addToTotal,
  bookingsIndexKey,
  counterAttribute,
  counterOfAttribute,
  DAY_COUNTERS,
  monthSk,
} from './layout';

const BOOKED_PREFIX = AGGREGATE_FAMILIES.booked.prefix;
const NIGHTS_PREFIX = AGGREGATE_FAMILIES.nights.prefix;

/** Adds a BOOKED# month item's counters of the days `firstDay..lastDay` into booking totals. */
function sumBookedMonth(
  item: Record<string, unknown>,
  firstDay: number,
  lastDay: number,
  into: BookingTotals,
) {
  // Parsed once per month item; each attribute then only adds its day of the month.
  const monthStart = parseIsoDate(`${String(item.SK).slice(BOOKED_PREFIX.length)}-01`);
  if (monthStart === undefined) return;
  for (const [attribute, value] of Object.entries(item)) {
    const found = counterOfAttribute('booked', attribute);
    if (found?.counter.family !== 'booked' || typeof value !== 'number') continue;
    const day = monthStart + found.day - 1;
    if (day >= firstDay && day <= lastDay) addToTotal(into, found.counter, value, found.key);
  }
}

/** The month items of a family for the days `from..to`, eventually consistent. */
function queryMonths(propertyId: number, family: keyof typeof AGGREGATE_FAMILIES, from: number, to: number) {
  return queryAll({
    TableName: tableName(),
    KeyConditionExpression: 'PK = :property AND SK BETWEEN :from AND :to',
    ExpressionAttributeValues: {
      ':property': propertyPartition(propertyId),
      ':from': monthSk(family, from),
      ':to': monthSk(family, to),
    },
  });
}

/** The reservations booked in an edge range of the window (confirmed only: the index holds no other). */
function queryBookedBetween(propertyId: number, edge: BookingWindow['edges'][number]) {
  return queryAll({
    TableName: tableName(),
    IndexName: GSI1,
    KeyConditionExpression: 'GSI1PK = :bookings AND GSI1SK BETWEEN :from AND :to',
    ExpressionAttributeValues: {
      ':bookings': bookingsIndexKey(propertyId),
      ':from': new Date(edge.fromMs).toISOString(),
      ':to': `${new Date(edge.toMs).toISOString()}#\uffff`,
    },
    ProjectionExpression: 'reservation',
  });
}

/** Occupied units of each of the 30 nights from today, from the NIGHTS# month items. */
function occupiedUnitsOf(
  nightMonths: readonly Record<string, unknown>[],
  today: number,
): Map<number, number> {
  const occupiedUnits = new Map<number, number>();
  const nightsByMonth = new Map(
    nightMonths.map((item) => [String(item.SK).slice(NIGHTS_PREFIX.length), item]),
  );
  for (let night = today; night < today + OCCUPANCY_NIGHTS; night++) {
    const date = isoDate(night); // YYYY-MM-DD, formatted once per night
    const value = nightsByMonth.get(date.slice(0, 7))?.[counterAttribute(DAY_COUNTERS.occupiedUnits, date)];
    occupiedUnits.set(night, typeof value === 'number' ? value : 0);
  }
  return occupiedUnits;
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
  const wholeDays = window.firstWholeDay <= window.lastWholeDay;
  const [bookedMonths, nightMonths, ...edges] = await Promise.all([
    wholeDays ? queryMonths(propertyId, 'booked', window.firstWholeDay, window.lastWholeDay) : [],
    queryMonths(propertyId, 'nights', today, today + OCCUPANCY_NIGHTS - 1),
    ...window.edges.map((edge) => queryBookedBetween(propertyId, edge)),
  ]);
  const bookings = emptyBookingTotals();
  for (const item of bookedMonths) sumBookedMonth(item, window.firstWholeDay, window.lastWholeDay, bookings);
  for (const item of edges.flat()) {
    const reservation = storedReservation(item.reservation);
    const contribution = reservation && contributionOf(reservation);
    if (contribution) addContributionToTotals(bookings, contribution);
  }
  return { bookings, occupiedUnits: occupiedUnitsOf(nightMonths, today) };
}
