import { isoDate } from '../../../core/domain/calendar';
import type { BookingTotals } from '../../../core/domain/pricing-signals';
import type { ReservationContribution } from '../../../core/domain/reservations';
import { MAX_CHANNEL_LENGTH, MAX_CHANNELS_PER_MONTH } from '../../../core/domain/reservations';
import { propertyPartition } from '../../../core/partitions';

/*
 * A property's partition holds its reservations (RES#<id>) and, per calendar month, one aggregate
 * item of each family of `AGGREGATE_FAMILIES`, whose attributes are the per-day counters of
 * `DAY_COUNTERS`. Signals read at most 13 + 2 aggregate items whatever the history, plus the
 * reservations booked on the two partial days at the window's edges (through GSI1, ordered by
 * booked_at): docs/design/pricing-signals.md#how-the-window-is-read-bounded-cost.
 */

export const RESERVATION_SK_PREFIX = 'RES#';

export const reservationKey = (propertyId: number, reservationId: string) => ({
  PK: propertyPartition(propertyId),
  SK: `${RESERVATION_SK_PREFIX}${reservationId}`,
});

/** The GSI1 partition of a property's confirmed reservations, sorted by `booked_at`. */
export const bookingsIndexKey = (propertyId: number) => `${propertyPartition(propertyId)}#BOOKINGS`;

/** The days of a stay's nights: `firstNight <= night < endNight`. */
function nightsOf(contribution: ReservationContribution): number[] {
  const nights: number[] = [];
  for (let night = contribution.firstNight; night < contribution.endNight; night++) nights.push(night);
  return nights;
}

/**
 * The families of monthly aggregate items: the sort key's prefix (then `YYYY-MM`), and the days on
 * which each counts a confirmed reservation.
 */
export const AGGREGATE_FAMILIES = {
  /** Bookings, on the day each was booked (UTC). */
  booked: { prefix: 'BOOKED#', daysOf: (contribution: ReservationContribution) => [contribution.bookedDay] },
  /** Occupancy, on each night a reservation occupies. */
  nights: { prefix: 'NIGHTS#', daysOf: nightsOf },
} as const;

export type AggregateFamily = keyof typeof AGGREGATE_FAMILIES;

/** The sort key of a family's item for the month of a date (`YYYY-MM-DD`). */
const monthSkOfDate = (family: AggregateFamily, date: string) =>
  `${AGGREGATE_FAMILIES[family].prefix}${date.slice(0, 7)}`;

/** The sort key of a family's item for the month of a day. */
export const monthSk = (family: AggregateFamily, day: number) => monthSkOfDate(family, isoDate(day));

/** The BookingTotals fields that hold a value of this type. */
type TotalOf<Value> = {
  [Field in keyof BookingTotals]: BookingTotals[Field] extends Value ? Field : never;
}[keyof BookingTotals];

/** The second part of a counter kept per day and key (`c<dd>:<channel>`), and what bounds it. */
interface CounterKey {
  readonly of: (contribution: ReservationContribution) => string;
  /** Longest key, in UTF-16 code units (each at most 3 UTF-8 bytes in the attribute's name). */
  readonly longest: number;
  /** Most distinct keys one month's item may hold. */
  readonly perMonth: number;
}

interface Counter {
  /** One letter: the attribute is `<letter><dd>`, or `<letter><dd>:<key>`, unique in its family. */
  readonly letter: string;
  /** What one confirmed reservation adds on each of its family's days. */
  readonly value: (contribution: ReservationContribution) => number;
  /**
   * Raised (2, 3…) when what the counter adds changes for reservations already counted: the stored
   * aggregates are then rebuilt on every stage by `data migrate` (docs/design/data-migrations.md).
   */
  readonly revision?: number;
}

/**
 * A per-day counter. A `booked` counter is summed over a window's whole days into a field of
 * `BookingTotals` (`readPricingInputs`), the same field the window's edge days add each
 * reservation's value to; a `nights` counter is read night by night (occupancy).
 */
export type DayCounter =
  | (Counter & { readonly family: 'booked'; readonly total: TotalOf<number>; readonly key?: undefined })
  | (Counter & {
      readonly family: 'booked';
      readonly total: TotalOf<Map<string, number>>;
      readonly key: CounterKey;
    })
  | (Counter & { readonly family: 'nights'; readonly key?: undefined });

/**
 * The per-day counters of the aggregate items: the one declaration from which a reservation's
 * deltas (`aggregateDeltas`, `aggregatesOf`), the sums read back into `BookingTotals`
 * (`readPricingInputs`) and the worst-case item size (`test/unit/reservations.test.ts`, "the
 * size of an aggregate item") follow. A new counter is one entry here.
 */
export const DAY_COUNTERS = {
  bookings: { family: 'booked', letter: 'n', value: () => 1, total: 'count' },
  leadDays: { family: 'booked', letter: 'l', value: (c) => c.leadDays, total: 'leadDaysSum' },
  stayNights: { family: 'booked', letter: 's', value: (c) => c.stayNights, total: 'stayNightsSum' },
  channelBookings: {
    family: 'booked',
    letter: 'c',
    value: () => 1,
    key: { of: (c) => c.channel, longest: MAX_CHANNEL_LENGTH, perMonth: MAX_CHANNELS_PER_MONTH },
    total: 'byChannel',
  },
  occupiedUnits: { family: 'nights', letter: 'o', value: () => 1 },
} as const satisfies Record<string, DayCounter>;

const COUNTERS: readonly DayCounter[] = Object.values(DAY_COUNTERS);

/**
 * The attribute of a counter on a date (`YYYY-MM-DD`, in its item's month), with the key of a
 * keyed counter.
 */
export function counterAttribute(counter: DayCounter, date: string, key?: string): string {
  return `${counter.letter}${date.slice(8, 10)}${key === undefined ? '' : `:${key}`}`;
}

/**
 * Calls `add` with every counter one confirmed reservation adds to: its item's sort key, the
 * attribute and the value.
 */
export function forEachCounterOf(
  contribution: ReservationContribution,
  add: (sk: string, attribute: string, value: number) => void,
): void {
  for (const counter of COUNTERS) {
    const value = counter.value(contribution);
    const key = counter.key?.of(contribution);
    for (const day of AGGREGATE_FAMILIES[counter.family].daysOf(contribution)) {
      const date = isoDate(day); // YYYY-MM-DD, formatted once per day and counter
      add(monthSkOfDate(counter.family, date), counterAttribute(counter, date, key), value);
    }
  }
}

/** The counters of each family by letter, to read an attribute back. */
const BY_LETTER = new Map(
  (Object.keys(AGGREGATE_FAMILIES) as AggregateFamily[]).map((family) => [
    family,
    new Map(
      COUNTERS.filter((counter) => counter.family === family).map((counter) => [counter.letter, counter]),
    ),
  ]),
);

/**
 * An attribute of an aggregate item: letter, day of month and, after `:`, the key. `[\s\S]`, not
 * `.`: a key (a channel) is any text, and `.` stops at U+2028 and U+2029.
 */
const ATTRIBUTE = /^([a-z])(\d{2})(?::([\s\S]*))?$/;

/** An attribute of a family's item read back: its counter, day of the month (1–31) and key. */
export interface CounterOfAttribute {
  readonly counter: DayCounter;
  readonly day: number;
  readonly key?: string;
}

/** The counter an attribute of a family's item holds, or undefined when it holds none (PK, SK). */
export function counterOfAttribute(
  family: AggregateFamily,
  attribute: string,
): CounterOfAttribute | undefined {
  const match = ATTRIBUTE.exec(attribute);
  const counter = match && BY_LETTER.get(family)?.get(match[1] as string);
  if (!counter || (counter.key === undefined) !== (match[3] === undefined)) return undefined;
  return { counter, day: Number(match[2]), ...(match[3] === undefined ? {} : { key: match[3] }) };
}

/** Adds a `booked` counter's value into its booking total. */
export function addToTotal(
  into: BookingTotals,
  counter: Extract<DayCounter, { family: 'booked' }>,
  value: number,
  key: string | undefined,
): void {
  if (counter.key === undefined) into[counter.total] += value;
  else if (key !== undefined) {
    const totals = into[counter.total];
    totals.set(key, (totals.get(key) ?? 0) + value);
  }
}

/** Adds what one confirmed reservation counts on its booking day into booking totals. */
export function addContributionToTotals(into: BookingTotals, contribution: ReservationContribution): void {
  for (const counter of COUNTERS)
    if (counter.family === 'booked')
      addToTotal(into, counter, counter.value(contribution), counter.key?.of(contribution));
}

/** The keys of a keyed counter in one item (any value, also 0): the channels a BOOKED# month holds. */
export function keysIn(item: Record<string, unknown>, counter: DayCounter): Set<string> {
  const keys = new Set<string>();
  for (const attribute of Object.keys(item)) {
    const found = counterOfAttribute(counter.family, attribute);
    if (found?.counter === counter && found.key !== undefined) keys.add(found.key);
  }
  return keys;
}
