import * as z from 'zod/mini';
import { pricingSignalsSchema } from '../../core/contract/api-schemas';
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
  propertyId: number,
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
    property_id: propertyId,
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

/** Vitest's `expect`, as much of it as the comparison uses. */
type Expect = (
  value: unknown,
  message?: string,
) => { toBeCloseTo(n: number, digits?: number): void; toEqual(v: unknown): void };

/** The integer formats of zod: their values compare exactly, every other number to 0.01. */
const INTEGER_FORMATS: ReadonlySet<string> = new Set(['safeint', 'int32', 'uint32']);

/**
 * Asserts that two documents of `schema` agree on every number the schema has, walked from its
 * shape: objects on their schema's fields (and no other), records on their keys, integers exactly,
 * other numbers to 0.01. Each failure names its field's path. A kind of schema it cannot compare
 * throws, so a new kind of field is never skipped in silence.
 */
export function expectNumbersClose(
  schema: z.core.$ZodType,
  actual: unknown,
  expected: unknown,
  expect: Expect,
  path = '',
): void {
  if (schema instanceof z.ZodMiniNumber) {
    const integer = schema instanceof z.ZodMiniNumberFormat && INTEGER_FORMATS.has(schema._zod.def.format);
    if (integer) expect(actual, path).toEqual(expected);
    else expect(actual, path).toBeCloseTo(expected as number, 2);
  } else if (schema instanceof z.ZodMiniObject) {
    const shape = schema.shape as Record<string, z.core.$ZodType>;
    expect(Object.keys(actual as object).sort(), `fields of ${path || 'the document'}`).toEqual(
      Object.keys(shape).sort(),
    );
    for (const [field, fieldSchema] of Object.entries(shape))
      expectNumbersClose(
        fieldSchema,
        fieldOf(actual, field),
        fieldOf(expected, field),
        expect,
        join(path, field),
      );
  } else if (schema instanceof z.ZodMiniRecord) {
    const keys = Object.keys(expected as object);
    expect(Object.keys(actual as object).sort(), `keys of ${path}`).toEqual([...keys].sort());
    for (const key of keys)
      expectNumbersClose(
        schema._zod.def.valueType,
        fieldOf(actual, key),
        fieldOf(expected, key),
        expect,
        join(path, key),
      );
  } else throw new Error(`expectNumbersClose cannot compare ${path}: a ${schema._zod.def.type}`);
}

/** An own field of an object, whatever its name (`__proto__` is a channel like any other). */
const fieldOf = (value: unknown, field: string) =>
  Object.getOwnPropertyDescriptor(value as object, field)?.value as unknown;

const join = (path: string, field: string) => (path ? `${path}.${field}` : field);

/** Asserts two signal documents agree on every number of the response's schema (`expectNumbersClose`). */
export function expectSignalsClose(
  actual: PricingSignalsResponse,
  expected: PricingSignalsResponse,
  expect: Expect,
): void {
  expectNumbersClose(pricingSignalsSchema, actual, expected, expect);
}
