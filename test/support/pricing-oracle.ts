import type { PricingSignalsResponse } from '../../core/domain/pricing-signals';
import type { Reservation } from '../../core/domain/reservations';

const DAY = 86_400_000;
const dayOf = (iso: string) => Math.floor(Date.parse(iso) / DAY);
const dateDay = (date: string) => Date.parse(`${date}T00:00:00Z`) / DAY;

/**
 * docs/design/pricing-signals.md, written literally over raw reservations: the reference the
 * aggregate-based implementation is checked against. Unrounded.
 */
export function pricingOracle(
  reservations: readonly Reservation[],
  nowMs: number,
  lookbackDays: number,
  units: number,
): PricingSignalsResponse {
  const confirmed = reservations.filter((reservation) => reservation.status === 'confirmed');
  const windowed = confirmed.filter((reservation) => {
    const bookedAt = Date.parse(reservation.booked_at);
    return bookedAt > nowMs - lookbackDays * DAY && bookedAt <= nowMs;
  });
  const count = windowed.length;
  const mean = (values: number[]) =>
    values.length === 0 ? 0 : values.reduce((a, b) => a + b, 0) / values.length;
  // A Map: a channel named `__proto__` or `constructor` is a channel like any other.
  const shares = new Map<string, number>();
  for (const reservation of windowed)
    shares.set(reservation.channel, (shares.get(reservation.channel) ?? 0) + 1 / count);
  const sourceMix: Record<string, number> = Object.fromEntries(shares);
  const today = Math.floor(nowMs / DAY);
  const occupancy = (night: number) =>
    Math.min(
      1,
      confirmed.filter((r) => dateDay(r.check_in) <= night && night < dateDay(r.check_out)).length / units,
    );
  const occupancy30d: Record<string, number> = {};
  for (let night = today; night < today + 30; night++) {
    occupancy30d[new Date(night * DAY).toISOString().slice(0, 10)] = occupancy(night);
  }
  return {
    property_id: reservations[0]?.property_id ?? 0,
    signals: {
      occupancy_today: occupancy(today),
      avg_lead_time_days: mean(windowed.map((r) => dateDay(r.check_in) - dayOf(r.booked_at))),
      avg_stay_nights: mean(windowed.map((r) => dateDay(r.check_out) - dateDay(r.check_in))),
      source_mix: sourceMix,
      total_reservations: count,
    },
    occupancy_30d: occupancy30d,
  };
}

/** Asserts two signal documents agree to 0.01 on every number, with the same keys. */
export function expectSignalsClose(
  actual: PricingSignalsResponse,
  expected: PricingSignalsResponse,
  expect: (value: unknown) => { toBeCloseTo(n: number, digits?: number): void; toEqual(v: unknown): void },
): void {
  const a = actual.signals;
  const e = expected.signals;
  expect(a.total_reservations).toEqual(e.total_reservations);
  for (const field of ['occupancy_today', 'avg_lead_time_days', 'avg_stay_nights'] as const)
    expect(a[field]).toBeCloseTo(e[field], 2);
  expect(Object.keys(a.source_mix).sort()).toEqual(Object.keys(e.source_mix).sort());
  for (const [channel, share] of Object.entries(e.source_mix))
    expect(a.source_mix[channel]).toBeCloseTo(share, 2);
  expect(Object.keys(actual.occupancy_30d)).toEqual(Object.keys(expected.occupancy_30d));
  for (const [night, ratio] of Object.entries(expected.occupancy_30d))
    expect(actual.occupancy_30d[night]).toBeCloseTo(ratio, 2);
}
