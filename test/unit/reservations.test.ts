import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { aggregateDeltas, planImportBatches } from '../../lambdas/data/reservations';
import { parseReservationFile } from '../../lambdas/domain/reservation-file';
import type { Reservation } from '../../lambdas/domain/reservations';

const base: Reservation = {
  id: 'r-1',
  property_id: 9,
  channel: 'Airbnb',
  booked_at: '2026-10-01T10:00:00.000Z',
  check_in: '2026-10-20',
  check_out: '2026-10-23',
  status: 'confirmed',
};

describe('reservation file', () => {
  it('accepts valid rows, normalises booked_at to UTC and drops unknown fields', () => {
    const parsed = parseReservationFile(
      [{ ...base, booked_at: '2026-10-01T12:00:00+02:00', guest_name: 'not stored' }],
      9,
    );

    expect(parsed).toEqual({ ok: true, reservations: [base] });
  });

  it('reports every bad row by index and accepts nothing', () => {
    const parsed = parseReservationFile(
      [
        base,
        { ...base, id: 'r-2', check_out: '2026-10-20' },
        { ...base, id: 'r-3', booked_at: 'yesterday' },
        { ...base, id: 'r-4', status: 'pending' },
        { ...base, id: 'r-1' },
        { ...base, id: 'r-6', property_id: 10 },
        { ...base, id: 'r-7', check_in: '2026-02-30' },
        'not an object',
      ],
      9,
    );

    expect(parsed.ok).toBe(false);
    if (parsed.ok) return;
    expect(parsed.errors.map((error) => error.index)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(parsed.errors[0]?.message).toContain('check_out: must be after check_in');
    expect(parsed.errors[1]?.message).toContain('booked_at');
    expect(parsed.errors[2]?.message).toContain('"confirmed" or "cancelled"');
    expect(parsed.errors[3]?.message).toContain('repeats row 0');
    expect(parsed.errors[4]?.message).toContain('property_id is 10');
    expect(parsed.errors[5]?.message).toContain('calendar date');
  });

  it('refuses a file that is not an array', () => {
    expect(parseReservationFile({ reservations: [] }, 9)).toEqual({
      ok: false,
      errors: [{ index: -1, message: 'the file must hold a JSON array' }],
    });
  });
});

describe('aggregate deltas', () => {
  it('counts a confirmed reservation on its booking day and on each night it occupies', () => {
    const deltas = aggregateDeltas(undefined, base);

    expect(Object.fromEntries(deltas.get('BOOKED#2026-10') ?? [])).toEqual({
      n01: 1,
      l01: 19,
      s01: 3,
      'c01:Airbnb': 1,
    });
    expect(Object.fromEntries(deltas.get('NIGHTS#2026-10') ?? [])).toEqual({ o20: 1, o21: 1, o22: 1 });
  });

  it('changes nothing for an identical re-import, and removes everything on cancellation', () => {
    expect(aggregateDeltas(base, base).size).toBe(0);
    const cancelled = aggregateDeltas(base, { ...base, status: 'cancelled' });
    expect(Object.fromEntries(cancelled.get('NIGHTS#2026-10') ?? [])).toEqual({ o20: -1, o21: -1, o22: -1 });
    expect(Object.fromEntries(cancelled.get('BOOKED#2026-10') ?? [])).toEqual({
      n01: -1,
      l01: -19,
      s01: -3,
      'c01:Airbnb': -1,
    });
  });

  it('moves only the nights that changed when dates shift', () => {
    const deltas = aggregateDeltas(base, { ...base, check_out: '2026-10-24' });

    expect(Object.fromEntries(deltas.get('NIGHTS#2026-10') ?? [])).toEqual({ o23: 1 });
    expect(Object.fromEntries(deltas.get('BOOKED#2026-10') ?? [])).toEqual({ s01: 1 });
  });

  it('telescopes: the deltas of a chain of versions equal those of the last version alone', () => {
    const version = fc.record({
      channel: fc.constantFrom('Airbnb', 'Direct', 'Vrbo'),
      bookedDay: fc.integer({ min: 0, max: 60 }),
      checkInOffset: fc.integer({ min: 0, max: 40 }),
      nights: fc.integer({ min: 1, max: 45 }),
      status: fc.constantFrom('confirmed' as const, 'cancelled' as const),
    });
    const toReservation = (v: {
      channel: string;
      bookedDay: number;
      checkInOffset: number;
      nights: number;
      status: 'confirmed' | 'cancelled';
    }): Reservation => {
      const day = Date.UTC(2026, 0, 1) / 86_400_000 + v.bookedDay;
      const date = (d: number) => new Date(d * 86_400_000).toISOString().slice(0, 10);
      return {
        ...base,
        channel: v.channel,
        booked_at: new Date(day * 86_400_000 + 3_600_000).toISOString(),
        check_in: date(day + v.checkInOffset),
        check_out: date(day + v.checkInOffset + v.nights),
        status: v.status,
      };
    };
    fc.assert(
      fc.property(fc.array(version, { minLength: 1, maxLength: 6 }), (versions) => {
        const reservations = versions.map(toReservation);
        const chained = new Map();
        let previous: Reservation | undefined;
        for (const next of reservations) {
          aggregateDeltas(previous, next, chained);
          previous = next;
        }

        expect(chained).toEqual(aggregateDeltas(undefined, reservations.at(-1)));
      }),
    );
  });
});

describe('import batches', () => {
  it('keeps every transaction within 100 items', () => {
    const changes = Array.from({ length: 300 }, (_, i) => ({
      next: {
        ...base,
        id: `r-${i}`,
        booked_at: `2026-${String((i % 12) + 1).padStart(2, '0')}-01T10:00:00.000Z`,
        check_in: '2027-01-01',
        check_out: '2027-03-15',
      },
    }));
    const batches = planImportBatches(changes);

    expect(batches.flat()).toHaveLength(300);
    for (const batch of batches) {
      const deltas = new Map();
      for (const change of batch) aggregateDeltas(undefined, change.next, deltas);
      expect(batch.length + deltas.size).toBeLessThanOrEqual(100);
    }
  });
});
