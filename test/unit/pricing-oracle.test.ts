import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { pricingSignalsSchema } from '../../core/contract/api-schemas';
import { DAY_MS } from '../../core/domain/calendar';
import type { PricingSignalsResponse } from '../../core/domain/pricing-signals';
import { emptyBookingTotals, pricingSignals } from '../../core/domain/pricing-signals';
import { expectNumbersClose, expectSignalsClose } from '../support/pricing-oracle';

const NOW = Date.parse('2026-11-22T15:30:00.000Z');

/** A response with every kind of field filled: shares of two channels, occupancy on some nights. */
const response: PricingSignalsResponse = pricingSignals({
  propertyId: 42,
  units: 3,
  nowMs: NOW,
  bookings: {
    ...emptyBookingTotals(),
    count: 3,
    leadDaysSum: 20,
    stayNightsSum: 7,
    byChannel: new Map([
      ['Airbnb', 2],
      ['__proto__', 1],
    ]),
  },
  occupiedUnits: (night) => night % 4,
});

/** Every number of a JSON document, by path, found without the schema. */
function numbersOf(value: unknown, path = ''): string[] {
  if (typeof value === 'number') return [path];
  if (typeof value !== 'object' || value === null) return [];
  return Object.entries(value).flatMap(([key, field]) => numbersOf(field, path ? `${path}.${key}` : key));
}

/** A copy of the document with the number at `path` moved by `by`. */
function moved(document: unknown, path: string, by: number): PricingSignalsResponse {
  const copy = JSON.parse(JSON.stringify(document));
  const keys = path.split('.');
  const last = keys.pop() as string;
  const parent = keys.reduce((object, key) => object[key], copy);
  parent[last] += by;
  return copy;
}

describe('the oracle’s comparison walks the response’s schema', () => {
  it('compares every number of a response, each by its path: integers exactly, others to 0.01', () => {
    const paths = numbersOf(response);
    expect(paths).toEqual(
      expect.arrayContaining(['property_id', 'signals.total_reservations', 'signals.source_mix.__proto__']),
    );
    expect(paths.filter((path) => path.startsWith('occupancy_30d.'))).toHaveLength(30);

    expectSignalsClose(moved(response, 'signals.avg_stay_nights', 0.004), response, expect);
    for (const path of paths) {
      expect(() => expectSignalsClose(moved(response, path, 0.5), response, expect), path).toThrow(path);
      if (path === 'property_id' || path === 'signals.total_reservations')
        expect(() => expectSignalsClose(moved(response, path, 1), response, expect), path).toThrow(path);
    }
  });

  it('compares a numeric field added to the schema without naming it, and refuses a field the schema lacks', () => {
    const withGuests = z.object({
      ...pricingSignalsSchema.shape,
      signals: z.extend(pricingSignalsSchema.shape.signals, { avg_guests: z.number() }),
    });
    const actual = { ...response, signals: { ...response.signals, avg_guests: 2.5 } };
    const expected = { ...response, signals: { ...response.signals, avg_guests: 3 } };

    expectNumbersClose(withGuests, actual, { ...actual }, expect);
    expect(() => expectNumbersClose(withGuests, actual, expected, expect)).toThrow('signals.avg_guests');
    expect(() => expectSignalsClose(actual, actual, expect)).toThrow('fields of signals');
  });

  it('refuses a kind of field it cannot compare, rather than skip it', () => {
    const withText = z.object({ ...pricingSignalsSchema.shape, currency: z.string() });
    const document = { ...response, currency: 'EUR' };

    expect(() => expectNumbersClose(withText, document, document, expect)).toThrow(
      'cannot compare currency: a string',
    );
  });

  it('compares the records’ keys: a channel or a night missing on either side is a difference', () => {
    const { Airbnb: _airbnb, ...fewer } = response.signals.source_mix;
    const firstNight = new Date(Math.floor(NOW / DAY_MS) * DAY_MS).toISOString().slice(0, 10);
    const { [firstNight]: _tonight, ...nights } = response.occupancy_30d;

    expect(() =>
      expectSignalsClose(
        { ...response, signals: { ...response.signals, source_mix: fewer } },
        response,
        expect,
      ),
    ).toThrow('keys of signals.source_mix');
    expect(() => expectSignalsClose(response, { ...response, occupancy_30d: nights }, expect)).toThrow(
      'keys of occupancy_30d',
    );
  });
});
