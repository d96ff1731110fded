import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Reservation } from '../../core/domain/reservations';
import {
  channelCapBreaches,
  channelsBookedByMonth,
  MAX_CHANNEL_LENGTH,
  MAX_CHANNELS_PER_MONTH,
  TooManyChannelsError,
} from '../../core/domain/reservations';
import type { AggregateDeltas } from '../../lambdas/data/reservations/apply';
import {
  aggregateDeltas,
  aggregatesOf,
  planReservationTransactions,
} from '../../lambdas/data/reservations/apply';
import type { AggregateFamily, DayCounter } from '../../lambdas/data/reservations/layout';
import { AGGREGATE_FAMILIES, DAY_COUNTERS } from '../../lambdas/data/reservations/layout';
import { parseReservationFile, parseReservationJson } from '../../operations/reservation-file';
import {
  DAYS_OF_A_LONGEST_MONTH,
  itemBytes,
  LARGEST_NUMBER,
  longestKey,
  MAX_ITEM_BYTES,
  numberBytes,
  worstCaseAggregateItem,
} from '../support/item-size';

const base: Reservation = {
  id: 'r-1',
  property_id: 9,
  channel: 'Airbnb',
  booked_at: '2026-10-01T10:00:00.000Z',
  check_in: '2026-10-20',
  check_out: '2026-10-23',
  status: 'confirmed',
};

/** A reservation drawn around January 2026: when it is booked, its stay and its status. */
const version = fc.record({
  channel: fc.constantFrom('Airbnb', 'Direct', 'Vrbo'),
  bookedDay: fc.integer({ min: 0, max: 60 }),
  checkInOffset: fc.integer({ min: 0, max: 40 }),
  nights: fc.integer({ min: 1, max: 45 }),
  status: fc.constantFrom('confirmed' as const, 'cancelled' as const),
});
const toReservation = (
  v: {
    channel: string;
    bookedDay: number;
    checkInOffset: number;
    nights: number;
    status: 'confirmed' | 'cancelled';
  },
  id = base.id,
): Reservation => {
  const day = Date.UTC(2026, 0, 1) / 86_400_000 + v.bookedDay;
  const date = (d: number) => new Date(d * 86_400_000).toISOString().slice(0, 10);
  return {
    ...base,
    id,
    channel: v.channel,
    booked_at: new Date(day * 86_400_000 + 3_600_000).toISOString(),
    check_in: date(day + v.checkInOffset),
    check_out: date(day + v.checkInOffset + v.nights),
    status: v.status,
  };
};

describe('reservation file', () => {
  it('accepts valid rows, normalises booked_at to UTC and drops unknown fields', () => {
    const parsed = parseReservationFile(
      [{ ...base, booked_at: '2026-10-01T12:00:00+02:00', guest_name: 'not stored' }],
      9,
    );

    expect(parsed).toEqual({ ok: true, reservations: [base] });
  });

  it('reports every bad row by its number, counted from 1, and accepts nothing', () => {
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
    expect(parsed.errors.map((error) => error.row)).toEqual([2, 3, 4, 5, 6, 7, 8]);
    expect(parsed.errors[0]?.message).toContain('check_out: must be after check_in');
    expect(parsed.errors[1]?.message).toContain('booked_at');
    expect(parsed.errors[2]?.message).toContain('"confirmed" or "cancelled"');
    expect(parsed.errors[3]?.message).toContain('repeats row 1');
    expect(parsed.errors[4]?.message).toContain('property_id is 10');
    expect(parsed.errors[5]?.message).toContain('calendar date');
    // A row that is not an object says so, once.
    expect(parsed.errors[6]?.message).toBe('row: must be an object of the fields above');
  });

  it('tells every problem of a row at once: its fields, its dates, its property and a repeated id', () => {
    const parsed = parseReservationFile(
      [base, { ...base, status: 'pending', channel: '', check_out: '2026-10-01', property_id: 10 }],
      9,
    );

    expect(parsed.ok).toBe(false);
    if (parsed.ok) return;
    expect(parsed.errors).toHaveLength(1);
    expect(parsed.errors[0]?.row).toBe(2);
    const message = parsed.errors[0]?.message ?? '';
    for (const problem of [
      'channel: must not be empty',
      'status: must be "confirmed" or "cancelled"',
      'check_out: must be after check_in',
      'property_id is 10',
      'repeats row 1',
    ])
      expect(message).toContain(problem);
  });

  it('refuses dates that would push a signal outside its published range, and ids that are not one line', () => {
    const rows = [
      { ...base, id: 'far-check-in', check_in: '9999-12-30', check_out: '9999-12-31' },
      { ...base, id: 'ancient-booking', booked_at: '0100-01-01T00:00:00Z' },
      {
        ...base,
        id: 'eleven-years-ahead',
        booked_at: '2026-01-01T00:00:00Z',
        check_in: '2037-01-02',
        check_out: '2037-01-03',
      },
      {
        ...base,
        id: 'eleven-years-late',
        booked_at: '2099-01-01T00:00:00Z',
        check_in: '2088-01-01',
        check_out: '2088-01-02',
      },
      { ...base, id: '\u001b[31mred' },
      { ...base, id: 'over\u202eride' },
    ];

    const parsed = parseReservationFile(rows, 9);

    expect(parsed.ok).toBe(false);
    const messages = parsed.ok ? [] : parsed.errors.map((error) => `${error.row} ${error.message}`);
    expect(messages).toEqual([
      expect.stringMatching(
        /^1 check_in: must be between 2000-01-01 and 2099-12-31.*check_out: must be between/,
      ),
      expect.stringMatching(/^2 booked_at: must be between 2000-01-01 and 2099-12-31 \(UTC\)/),
      expect.stringMatching(/^3 check_in: is 4019 days after the booking day; at most 3650 either way/),
      expect.stringMatching(/^4 check_in: is 4018 days before the booking day; at most 3650 either way/),
      expect.stringMatching(/^5 id: must be one line of text/),
      expect.stringMatching(/^6 id: must be one line of text/),
    ]);
  });

  it('accepts the extremes it allows: ten years either way, first and last dates of the range', () => {
    const rows = [
      {
        ...base,
        id: 'a',
        booked_at: '2000-01-01T00:00:00Z',
        check_in: '2009-12-29',
        check_out: '2009-12-30',
      },
      {
        ...base,
        id: 'b',
        booked_at: '2099-12-31T23:59:59Z',
        check_in: '2090-01-02',
        check_out: '2090-01-03',
      },
    ];

    expect(parseReservationFile(rows, 9).ok).toBe(true);
  });

  it('accepts the example file of docs/operators.md for the demo data’s property 2', async () => {
    const { readFile } = await import('node:fs/promises');
    const json = parseReservationJson(await readFile('docs/examples/reservations.json', 'utf8'));

    expect(json.ok && parseReservationFile(json.rows, 2)).toMatchObject({
      ok: true,
      reservations: { length: 4 },
    });
  });

  it('refuses a file that is not an array', () => {
    expect(parseReservationFile({ reservations: [] }, 9)).toEqual({
      ok: false,
      errors: [{ row: 0, message: 'the file must hold a JSON array' }],
    });
  });
});

describe('import file text', () => {
  it('ignores a UTF-8 byte order mark at the start of the file', () => {
    expect(parseReservationJson(`\uFEFF${JSON.stringify([base])}`)).toEqual({ ok: true, rows: [base] });
    expect(parseReservationJson('[]')).toEqual({ ok: true, rows: [] });
  });

  it('still refuses a byte order mark anywhere else, and text that is not JSON', () => {
    expect(parseReservationJson('[\uFEFF]').ok).toBe(false);
    expect(parseReservationJson('\uFEFF\uFEFF[]').ok).toBe(false);
    expect(parseReservationJson('[{"id": ')).toMatchObject({ ok: false, message: expect.any(String) });
  });
});

describe('channels per property and month', () => {
  const months = (entries: [string, string[]][]) => new Map(entries.map(([month, c]) => [month, new Set(c)]));
  const names = (count: number, prefix = 'C') => Array.from({ length: count }, (_, i) => `${prefix}${i}`);

  it('groups the channels of confirmed reservations by the month they were booked in', () => {
    const channels = channelsBookedByMonth([
      base,
      { ...base, id: 'b', channel: '__proto__' },
      { ...base, id: 'c', channel: 'Vrbo', booked_at: '2026-11-30T23:59:59.000Z' },
      { ...base, id: 'd', channel: 'Cancelled', status: 'cancelled' },
    ]);

    expect(channels).toEqual(
      months([
        ['2026-10', ['Airbnb', '__proto__']],
        ['2026-11', ['Vrbo']],
      ]),
    );
  });

  it('allows up to the cap with the stored channels, and refuses one new channel more', () => {
    const stored = months([['2026-10', names(MAX_CHANNELS_PER_MONTH - 1)]]);

    expect(channelCapBreaches(stored, months([['2026-10', ['C0', 'New']]]))).toEqual([]);
    expect(channelCapBreaches(stored, months([['2026-10', ['New', 'Newer']]]))).toEqual([
      { month: '2026-10', channels: MAX_CHANNELS_PER_MONTH + 1 },
    ]);
  });

  it('reports every month over the cap, in order, and never refuses channels a month already has', () => {
    const over = names(MAX_CHANNELS_PER_MONTH + 5);
    const breaches = channelCapBreaches(
      months([['2025-01', over]]),
      months([
        ['2026-03', names(MAX_CHANNELS_PER_MONTH + 1)],
        ['2025-01', over.slice(0, 3)],
        ['2025-12', names(80)],
      ]),
    );

    expect(breaches).toEqual([
      { month: '2025-12', channels: 80 },
      { month: '2026-03', channels: MAX_CHANNELS_PER_MONTH + 1 },
    ]);
    expect(new TooManyChannelsError(12, breaches).message).toContain(
      `property 12 would have 80 booking channels in 2025-12, ${MAX_CHANNELS_PER_MONTH + 1} booking channels in 2026-03; at most ${MAX_CHANNELS_PER_MONTH}`,
    );
    const years = Array.from({ length: 15 }, (_, i) => ({ month: `2020-${i}`, channels: 30 }));
    expect(new TooManyChannelsError(12, years).message).toContain(
      'in 2020-11, and 3 more months over the cap;',
    );
  });
});

describe('the size of an aggregate item', () => {
  it('counts as DynamoDB documents it: name bytes, then a string’s UTF-8 bytes or a number’s digits', () => {
    expect(numberBytes(0)).toBe(1);
    expect(numberBytes(7)).toBe(2);
    expect(numberBytes(12_000)).toBe(2);
    expect(numberBytes(123)).toBe(3);
    expect(numberBytes(-123)).toBe(4);
    expect(numberBytes(0.015)).toBe(2);
    expect(numberBytes(LARGEST_NUMBER)).toBe(21);
    expect(itemBytes({ PK: 'PROPERTY#7', n01: 12, 'c01:Zoë': 1 })).toBe(2 + 10 + 3 + 2 + 8 + 2);
    expect(() => itemBytes({ list: [1] })).toThrow('counts strings and numbers');
  });

  it('is at most a third of 400 KB for every family in the worst case of DAY_COUNTERS, so three imports racing past the channel cap still fit', () => {
    for (const family of Object.keys(AGGREGATE_FAMILIES) as AggregateFamily[]) {
      const worst = itemBytes(worstCaseAggregateItem(family));
      const raced = itemBytes(worstCaseAggregateItem(family, { racingImports: 3 }));

      expect(worst, `${family}: ${worst} bytes`).toBeLessThanOrEqual(MAX_ITEM_BYTES / 3);
      expect(raced, `${family}, three imports racing: ${raced} bytes`).toBeLessThan(MAX_ITEM_BYTES);
    }
  });

  it('has the worst case hold every attribute that a full month of the longest channels writes', () => {
    const channels = Array.from({ length: MAX_CHANNELS_PER_MONTH }, (_, i) =>
      longestKey(MAX_CHANNEL_LENGTH, i),
    );
    const [first = 0] = DAYS_OF_A_LONGEST_MONTH;
    const date = (day: number) => new Date(day * 86_400_000).toISOString().slice(0, 10);
    // Booked on each day of the month on each channel, with a stay later on; and a stay of every night.
    const rows = DAYS_OF_A_LONGEST_MONTH.flatMap((day) =>
      channels.map(
        (channel): Reservation => ({
          ...base,
          id: `${day}-${channel}`,
          channel,
          booked_at: `${date(day)}T10:00:00.000Z`,
          check_in: '2026-12-01',
          check_out: '2026-12-02',
        }),
      ),
    );
    rows.push({
      ...base,
      booked_at: '2026-09-01T10:00:00.000Z',
      check_in: date(first),
      check_out: date(first + 31),
    });
    const written = aggregatesOf(rows);

    expect(Buffer.byteLength(channels[0] ?? '')).toBe(3 * MAX_CHANNEL_LENGTH);
    expect(written.get('BOOKED#2026-10')?.size).toBeGreaterThan(31 * MAX_CHANNELS_PER_MONTH);
    for (const family of Object.keys(AGGREGATE_FAMILIES) as AggregateFamily[]) {
      const { SK: sk, ...worst } = worstCaseAggregateItem(family);
      const missing = [...(written.get(String(sk))?.keys() ?? [])].filter(
        (name) => !Object.hasOwn(worst, name),
      );
      expect(written.has(String(sk)), family).toBe(true);
      expect(missing, family).toEqual([]);
    }
  });
});

describe('aggregate deltas', () => {
  it('gives each counter of DAY_COUNTERS one lowercase letter of its own within its family', () => {
    const counters: readonly DayCounter[] = Object.values(DAY_COUNTERS);
    for (const counter of counters) expect(counter.letter).toMatch(/^[a-z]$/);
    for (const family of Object.keys(AGGREGATE_FAMILIES)) {
      const letters = counters
        .filter((counter) => counter.family === family)
        .map((counter) => counter.letter);
      expect(new Set(letters).size, family).toBe(letters.length);
    }
  });

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
    // A cancellation takes back exactly what the booking added (the test above pins what that is).
    const cancelled = aggregateDeltas(base, { ...base, status: 'cancelled' });
    const added = aggregateDeltas(undefined, base);
    expect([...cancelled.keys()].sort()).toEqual([...added.keys()].sort());
    for (const [sk, counters] of added)
      expect(Object.fromEntries(cancelled.get(sk) ?? [])).toEqual(
        Object.fromEntries([...counters].map(([attribute, value]) => [attribute, -value])),
      );
  });

  it('moves only the nights that changed when dates shift', () => {
    const deltas = aggregateDeltas(base, { ...base, check_out: '2026-10-24' });

    expect(Object.fromEntries(deltas.get('NIGHTS#2026-10') ?? [])).toEqual({ o23: 1 });
    expect(Object.fromEntries(deltas.get('BOOKED#2026-10') ?? [])).toEqual({ s01: 1 });
  });

  it('telescopes: the deltas of a chain of versions equal those of the last version alone', () => {
    fc.assert(
      fc.property(fc.array(version, { minLength: 1, maxLength: 6 }), (versions) => {
        const reservations = versions.map((v) => toReservation(v));
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

describe('one ReservationChanged, one transaction', () => {
  it('fits DynamoDB’s 100 actions even when a longest stay moves to other months', () => {
    const longest = { ...base, check_in: '2026-10-20', check_out: '2028-10-19' };
    const moved = {
      ...base,
      booked_at: '2027-06-01T10:00:00.000Z',
      check_in: '2029-01-01',
      check_out: '2030-12-31',
    };
    const deltas = aggregateDeltas(longest, moved);

    // The reservation itself, every aggregate item it moves, and the check that the property is not erased.
    expect(1 + deltas.size + 1).toBeLessThanOrEqual(100);
    expect(deltas.size).toBeGreaterThan(48);
  });
});

describe('a batch of ReservationChanged, as few transactions as fit', () => {
  const actions = (
    transaction: readonly { previous?: { reservation: Reservation }; next: Reservation }[],
  ) => {
    const deltas: AggregateDeltas = new Map();
    for (const change of transaction) aggregateDeltas(change.previous?.reservation, change.next, deltas);
    return { count: transaction.length + deltas.size + 1, deltas };
  };

  it('keeps every change, in order, in transactions within DynamoDB’s limits', () => {
    const change = fc.record({ next: version, previous: fc.option(version, { nil: undefined }) });
    fc.assert(
      fc.property(fc.array(change, { minLength: 90, maxLength: 150 }), (drawn) => {
        const changes = drawn.map((c, index) => ({
          index,
          next: toReservation(c.next, `r-${index}`),
          ...(c.previous ? { previous: { reservation: toReservation(c.previous, `r-${index}`) } } : {}),
        }));
        const transactions = planReservationTransactions(changes);

        expect(transactions.flat()).toEqual(changes);
        for (const transaction of transactions) {
          const { count, deltas } = actions(transaction);
          expect(transaction.length).toBeGreaterThan(0);
          expect(count).toBeLessThanOrEqual(100);
          for (const attributes of deltas.values()) expect(attributes.size).toBeLessThanOrEqual(150);
        }
        // Each transaction but the last is full: the next change would not have fitted.
        transactions.slice(0, -1).forEach((transaction, index) => {
          const next = transactions[index + 1]?.[0];
          if (!next) return;
          const joined = actions([...transaction, next]);
          const tooLarge = [...joined.deltas.values()].some((attributes) => attributes.size > 150);
          expect(joined.count > 100 || tooLarge).toBe(true);
        });
      }),
    );
  });

  it('puts a busy month’s fifty bookings in one transaction', () => {
    const changes = Array.from({ length: 50 }, (_, index) => ({
      next: { ...base, id: `r-${index}`, channel: index % 2 ? 'Airbnb' : 'Direct' },
    }));

    expect(planReservationTransactions(changes)).toHaveLength(1);
  });
});
