import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DAY_MS, parseIsoDate } from '../../core/domain/calendar';
import type { PricingSignalsResponse } from '../../core/domain/pricing-signals';
import {
  bookingWindow,
  emptyBookingTotals,
  pricingSignals,
  roundSignal,
} from '../../core/domain/pricing-signals';
import { channelName } from '../support/awkward-channels';
import { NO_RESERVATION_SIGNALS } from '../support/pricing-fixtures';

const NOW = Date.parse('2026-11-22T15:30:00.000Z');
const TODAY = Math.floor(NOW / DAY_MS);

describe('booking window (now - N days, now]', () => {
  it('splits into whole days from aggregates and two partial edge days', () => {
    const window = bookingWindow(NOW, 90);

    expect(window.fromMs).toBe(NOW - 90 * DAY_MS);
    expect(window.firstWholeDay).toBe(TODAY - 89);
    expect(window.lastWholeDay).toBe(TODAY - 1);
    expect(window.edges).toEqual([
      { fromMs: NOW - 90 * DAY_MS + 1, toMs: (TODAY - 89) * DAY_MS - 1 },
      { fromMs: TODAY * DAY_MS, toMs: NOW },
    ]);
  });

  it('has no whole day for a one-day lookback', () => {
    const window = bookingWindow(NOW, 1);

    expect(window.firstWholeDay).toBeGreaterThan(window.lastWholeDay);
  });

  it('asks for no empty edge when the window opens on the last millisecond of a day', () => {
    // Found by the event model test: a BETWEEN with reversed bounds is a ValidationException (a 500).
    const lastMillisecond = Date.parse('2027-02-28T23:59:59.999Z');
    const window = bookingWindow(lastMillisecond, 90);

    expect(window.edges).toEqual([{ fromMs: Date.parse('2027-02-28T00:00:00.000Z'), toMs: lastMillisecond }]);
    expect(window.firstWholeDay).toBe(Math.floor(Date.parse('2026-12-01') / DAY_MS));
  });

  it('covers every instant of the window exactly once, with no reversed range', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.integer({ min: 1_700_000_000_000, max: 1_900_000_000_000 }),
          fc.integer({ min: 19_700, max: 21_900 }).map((day) => (day + 1) * DAY_MS - 1),
          fc.integer({ min: 19_700, max: 21_900 }).map((day) => day * DAY_MS),
        ),
        fc.integer({ min: 1, max: 365 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (now, days, position) => {
          const window = bookingWindow(now, days);
          const instant = Math.floor(window.fromMs + 1 + position * (window.toMs - window.fromMs - 1));
          const day = Math.floor(instant / DAY_MS);
          const inWhole = day >= window.firstWholeDay && day <= window.lastWholeDay ? 1 : 0;
          const inEdges = window.edges.filter(
            (edge) => instant >= edge.fromMs && instant <= edge.toMs,
          ).length;

          expect(inWhole + inEdges).toBe(1);
          expect(window.edges.every((edge) => edge.fromMs <= edge.toMs)).toBe(true);
        },
      ),
      { numRuns: 1_000 },
    );
  });
});

describe('pricing signal formulas', () => {
  it('reports zeros and an empty source mix for a property without reservations', () => {
    const response = pricingSignals({
      propertyId: 7,
      units: 1,
      nowMs: NOW,
      bookings: emptyBookingTotals(),
      occupiedUnits: () => 0,
    });

    expect(response.property_id).toBe(7);
    expect(response.signals).toEqual(NO_RESERVATION_SIGNALS);
    expect(Object.keys(response.occupancy_30d)).toHaveLength(30);
    expect(Object.keys(response.occupancy_30d)[0]).toBe('2026-11-22');
    expect(Object.keys(response.occupancy_30d)[29]).toBe('2026-12-21');
    expect(Object.values(response.occupancy_30d).every((ratio) => ratio === 0)).toBe(true);
  });

  it('averages lead time and stay, and shares channels, over the window totals', () => {
    const response = pricingSignals({
      propertyId: 1,
      units: 1,
      nowMs: NOW,
      bookings: {
        ...emptyBookingTotals(),
        count: 3,
        leadDaysSum: 31,
        stayNightsSum: 10,
        byChannel: new Map([
          ['Airbnb', 2],
          ['Direct', 1],
        ]),
      },
      occupiedUnits: () => 0,
    });

    expect(response.signals.total_reservations).toBe(3);
    expect(response.signals.avg_lead_time_days).toBeCloseTo(10.3333, 4);
    expect(response.signals.avg_stay_nights).toBeCloseTo(3.3333, 4);
    expect(response.signals.source_mix).toEqual({ Airbnb: 0.6667, Direct: 0.3333 });
  });

  it('divides occupied units by units, capped at 1', () => {
    const occupied = new Map([
      [TODAY, 3],
      [TODAY + 1, 1],
      [TODAY + 2, 5],
    ]);
    const response = pricingSignals({
      propertyId: 1,
      units: 4,
      nowMs: NOW,
      bookings: emptyBookingTotals(),
      occupiedUnits: (night) => occupied.get(night) ?? 0,
    });

    expect(response.signals.occupancy_today).toBe(0.75);
    expect(response.occupancy_30d['2026-11-23']).toBe(0.25);
    expect(response.occupancy_30d['2026-11-24']).toBe(1);
  });

  it('keys occupancy by real calendar dates across month ends', () => {
    const response = pricingSignals({
      propertyId: 1,
      units: 1,
      nowMs: Date.parse('2028-02-15T00:00:00Z'),
      bookings: emptyBookingTotals(),
      occupiedUnits: () => 0,
    });

    expect(Object.keys(response.occupancy_30d)).toContain('2028-02-29');
    expect(Object.keys(response.occupancy_30d).every((date) => parseIsoDate(date) !== undefined)).toBe(true);
  });
});

describe('source_mix for any channel names (property-based)', () => {
  it('has every channel with a booking as an own key, and the shares sum to 1 within rounding', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.tuple(channelName, fc.integer({ min: 1, max: 500 })), {
          minLength: 1,
          maxLength: 12,
          selector: ([channel]) => channel,
        }),
        (counts) => {
          const byChannel = new Map(counts);
          const count = counts.reduce((sum, [, n]) => sum + n, 0);
          const response = pricingSignals({
            propertyId: 1,
            units: 1,
            nowMs: NOW,
            bookings: { ...emptyBookingTotals(), count, byChannel },
            occupiedUnits: () => 0,
          });
          // What a partner receives: the serialized body, parsed again.
          const mix = (JSON.parse(JSON.stringify(response)) as PricingSignalsResponse).signals.source_mix;
          const keys = Object.keys(mix);
          const shares = Object.values(mix);

          expect(keys.sort()).toEqual([...byChannel.keys()].sort());
          for (const [channel, n] of byChannel)
            expect(Object.hasOwn(mix, channel) && mix[channel]).toBe(roundSignal(n / count));
          // Each share is rounded to 4 decimals: the sum is 1 within half a unit of the 4th decimal per share.
          expect(Math.abs(shares.reduce((sum, share) => sum + share, 0) - 1)).toBeLessThanOrEqual(
            shares.length * 0.00005 + 1e-12,
          );
        },
      ),
      {
        numRuns: 500,
        examples: [
          [
            [
              ['__proto__', 1],
              ['constructor', 1],
              ['toString', 1],
              ['hasOwnProperty', 1],
            ],
          ],
        ],
      },
    );
  });

  it('keeps __proto__ as an own key of the serialized source_mix', () => {
    const response = pricingSignals({
      propertyId: 1,
      units: 1,
      nowMs: NOW,
      bookings: {
        ...emptyBookingTotals(),
        count: 4,
        byChannel: new Map([
          ['__proto__', 2],
          ['constructor', 1],
          ['toString', 1],
        ]),
      },
      occupiedUnits: () => 0,
    });

    expect(JSON.stringify(response.signals.source_mix)).toBe(
      '{"__proto__":0.5,"constructor":0.25,"toString":0.25}',
    );
    expect(Object.getPrototypeOf(JSON.parse(JSON.stringify(response.signals.source_mix)))).toBe(
      Object.prototype,
    );
  });
});
