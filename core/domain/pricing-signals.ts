import type { output } from 'zod/mini';
import type { pricingSignalsSchema } from '../contract/api-schemas';
import { DAY_MS, dayOfTimestamp, isoDate } from './calendar';

/** Confirmed reservation figures that feed the lookback-window signals. */
export interface BookingTotals {
  count: number;
  leadDaysSum: number;
  stayNightsSum: number;
  byChannel: Map<string, number>;
}

export function emptyBookingTotals(): BookingTotals {
  return { count: 0, leadDaysSum: 0, stayNightsSum: 0, byChannel: new Map() };
}

/**
 * The lookback window `(now - N days, now]` split so that reads stay bounded: whole booking
 * days come from per-day aggregates, the two partial days at the edges from the reservations
 * booked on them.
 */
export interface BookingWindow {
  /** Exclusive lower bound, ms. */
  readonly fromMs: number;
  /** Inclusive upper bound, ms (now). */
  readonly toMs: number;
  /** First and last whole booking days inside the window (empty when first > last). */
  readonly firstWholeDay: number;
  readonly lastWholeDay: number;
  /** Partial edge ranges, inclusive, in ms. */
  readonly edges: readonly { readonly fromMs: number; readonly toMs: number }[];
}

export function bookingWindow(nowMs: number, lookbackDays: number): BookingWindow {
  const fromMs = nowMs - lookbackDays * DAY_MS;
  const startDay = dayOfTimestamp(fromMs);
  const today = dayOfTimestamp(nowMs);
  return {
    fromMs,
    toMs: nowMs,
    firstWholeDay: startDay + 1,
    lastWholeDay: today - 1,
    // The first edge is empty when the window opens on a day's last millisecond (DynamoDB refuses a
    // BETWEEN whose bounds are reversed, so an empty range is never asked for).
    edges: [
      { fromMs: fromMs + 1, toMs: (startDay + 1) * DAY_MS - 1 },
      { fromMs: today * DAY_MS, toMs: nowMs },
    ].filter((edge) => edge.fromMs <= edge.toMs),
  };
}

export const OCCUPANCY_NIGHTS = 30;

/** The response, as its schema (the OpenAPI document's source) describes it: one definition of it. */
export type PricingSignalsResponse = output<typeof pricingSignalsSchema>;

/** Rounds a reported ratio or average to 4 decimals (well inside the 0.01 contract). */
export function roundSignal(value: number): number {
  return Math.round(value * 10_000) / 10_000;
}

function occupancyRatio(occupiedUnits: number, units: number): number {
  return roundSignal(Math.min(1, Math.max(0, occupiedUnits) / units));
}

/**
 * Each channel's share of the bookings, rounded, sorted by channel. Every channel with a booking
 * is an own key, whatever its name: `Object.fromEntries` defines properties, so `__proto__` or
 * `constructor` are keys like any other (assigning `object[channel]` would set the prototype
 * for `__proto__`), and `JSON.stringify` writes them all.
 */
function sourceMix(bookings: BookingTotals): Record<string, number> {
  const shares = [...bookings.byChannel]
    .filter(([, count]) => count > 0)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([channel, count]): [string, number] => [channel, roundSignal(count / bookings.count)]);
  return Object.fromEntries(shares);
}

/** The formulas of docs/design/pricing-signals.md, from totals already restricted to the window. */
export function pricingSignals(input: {
  propertyId: number;
  units: number;
  nowMs: number;
  bookings: BookingTotals;
  /** Occupied units on a night (day number). */
  occupiedUnits: (night: number) => number;
}): PricingSignalsResponse {
  const { bookings, units } = input;
  const today = dayOfTimestamp(input.nowMs);
  const mean = (sum: number) => (bookings.count === 0 ? 0 : roundSignal(sum / bookings.count));
  // Keys are YYYY-MM-DD dates: plain assignment is safe here, unlike channel names.
  const occupancy30d: Record<string, number> = {};
  for (let night = today; night < today + OCCUPANCY_NIGHTS; night++) {
    occupancy30d[isoDate(night)] = occupancyRatio(input.occupiedUnits(night), units);
  }
  return {
    property_id: input.propertyId,
    signals: {
      occupancy_today: occupancyRatio(input.occupiedUnits(today), units),
      avg_lead_time_days: mean(bookings.leadDaysSum),
      avg_stay_nights: mean(bookings.stayNightsSum),
      source_mix: sourceMix(bookings),
      total_reservations: bookings.count,
    },
    occupancy_30d: occupancy30d,
  };
}
