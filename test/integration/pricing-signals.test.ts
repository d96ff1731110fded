import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { runCli } from '../../cli/cli';
import { pricingSignalsSchema } from '../../core/contract/api-schemas';
import type { PricingSignalsResponse } from '../../core/domain/pricing-signals';
import type { Reservation } from '../../core/domain/reservations';
import { isOneLine } from '../../core/domain/text';
import { admin } from '../support/cli';
import type { TestPartner } from '../support/partners';
import { apiGet, approvedPartner, sponsoredProperty } from '../support/partners';
import { NO_RESERVATION_SIGNALS } from '../support/pricing-fixtures';
import { expectSignalsClose, pricingOracle } from '../support/pricing-oracle';
import { importArguments, importFolder, importInProcess } from '../support/reservation-import';

const DAY = 86_400_000;
let partner: TestPartner;
const { folder, writeRows } = importFolder();

beforeAll(async () => {
  partner = await approvedPartner();
});

const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** `reservations import` of a file as it is, without --json; its exit code and what it printed. */
const runImport = (propertyId: number, file: string) => admin(...importArguments(propertyId, file));

async function importFile(propertyId: number, rows: unknown, ...extra: string[]) {
  const { code, stdout, stderr } = await importInProcess(propertyId, await writeRows(rows), ...extra);
  return {
    code,
    result:
      code === 0
        ? (JSON.parse(stdout) as { published: number; unchanged: number; applied: boolean })
        : undefined,
    stderr,
  };
}

/** Fetches signals and checks them against docs/design/pricing-signals.md at the request's own clock. */
async function expectSignalsMatchOracle(
  propertyId: number,
  reservations: Reservation[],
  lookbackDays: number,
  units: number,
) {
  const before = Date.now();
  const { status, json } = await apiGet(
    `/properties/${propertyId}/pricing-signals?lookback_days=${lookbackDays}`,
    partner.key,
  );
  const after = Date.now();
  expect(status).toBe(200);
  const actual = json as unknown as PricingSignalsResponse;
  const today = Object.keys(actual.occupancy_30d)[0];
  const nowMs = isoDay(after) === today ? after : before;
  expectSignalsClose(actual, pricingOracle(propertyId, reservations, nowMs, lookbackDays, units), expect);
  return actual;
}

function reservation(
  propertyId: number,
  id: string,
  fields: Partial<Reservation> & { bookedAgoMs: number; checkInInDays: number; nights: number },
): Reservation {
  const now = Date.now();
  const today = Math.floor(now / DAY);
  return {
    id,
    property_id: propertyId,
    channel: fields.channel ?? 'Airbnb',
    booked_at: new Date(now - fields.bookedAgoMs).toISOString(),
    check_in: isoDay((today + fields.checkInInDays) * DAY),
    check_out: isoDay((today + fields.checkInInDays + fields.nights) * DAY),
    status: fields.status ?? 'confirmed',
  };
}

describe('reservations import and pricing signals', () => {
  it('computes every signal from imported reservations, and a re-import changes nothing', async () => {
    const { propertyId } = await sponsoredProperty(partner.id);
    const rows = [
      reservation(propertyId, 'a', { bookedAgoMs: 2 * DAY, checkInInDays: 10, nights: 3, channel: 'Airbnb' }),
      reservation(propertyId, 'b', {
        bookedAgoMs: 40 * DAY,
        checkInInDays: -2,
        nights: 5,
        channel: 'Booking.com',
      }),
      reservation(propertyId, 'c', {
        bookedAgoMs: 1 * 3_600_000,
        checkInInDays: 0,
        nights: 1,
        channel: 'Direct',
      }),
      reservation(propertyId, 'd', {
        bookedAgoMs: 100 * DAY,
        checkInInDays: -95,
        nights: 2,
        channel: 'Airbnb',
      }),
      reservation(propertyId, 'e', {
        bookedAgoMs: 5 * DAY,
        checkInInDays: 3,
        nights: 4,
        channel: 'Vrbo',
        status: 'cancelled',
      }),
    ];

    expect((await importFile(propertyId, rows)).result).toEqual({
      published: 5,
      unchanged: 0,
      applied: true,
    });
    const first = await expectSignalsMatchOracle(propertyId, rows, 90, 1);
    expect(first.signals.total_reservations).toBe(3);
    expect(first.signals.occupancy_today).toBe(1);

    expect((await importFile(propertyId, rows)).result).toEqual({
      published: 0,
      unchanged: 5,
      applied: true,
    });
    const again = await expectSignalsMatchOracle(propertyId, rows, 90, 1);
    expect(again.signals).toEqual(first.signals);
    await expectSignalsMatchOracle(propertyId, rows, 365, 1);
    await expectSignalsMatchOracle(propertyId, rows, 1, 1);
  });

  it('a re-import that cancels a reservation removes it from every signal', async () => {
    const { propertyId } = await sponsoredProperty(partner.id);
    const stay = reservation(propertyId, 'stay', {
      bookedAgoMs: 3 * DAY,
      checkInInDays: -1,
      nights: 4,
      channel: 'Direct',
    });
    await importFile(propertyId, [stay]);
    expect((await expectSignalsMatchOracle(propertyId, [stay], 30, 1)).signals.occupancy_today).toBe(1);

    const cancelled = { ...stay, status: 'cancelled' as const };
    expect((await importFile(propertyId, [cancelled])).result).toEqual({
      published: 1,
      unchanged: 0,
      applied: true,
    });

    const after = await expectSignalsMatchOracle(propertyId, [cancelled], 30, 1);
    expect(after.signals).toEqual(NO_RESERVATION_SIGNALS);
  });

  it('counts a booking one hour inside the window edge and not one an hour outside it', async () => {
    const { propertyId } = await sponsoredProperty(partner.id);
    const rows = [
      reservation(propertyId, 'inside', {
        bookedAgoMs: 30 * DAY - 3_600_000,
        checkInInDays: 5,
        nights: 2,
        channel: 'Inside',
      }),
      reservation(propertyId, 'outside', {
        bookedAgoMs: 30 * DAY + 3_600_000,
        checkInInDays: 5,
        nights: 2,
        channel: 'Outside',
      }),
      reservation(propertyId, 'today', {
        bookedAgoMs: 60_000,
        checkInInDays: 9,
        nights: 1,
        channel: 'Today',
      }),
    ];
    await importFile(propertyId, rows);

    const signals = await expectSignalsMatchOracle(propertyId, rows, 30, 1);

    expect(Object.keys(signals.signals.source_mix).sort()).toEqual(['Inside', 'Today']);
  });

  it('counts a long stay on every night it covers, whenever it was booked (window-independent occupancy)', async () => {
    const { propertyId } = await sponsoredProperty(partner.id);
    const rows = [
      reservation(propertyId, 'long', {
        bookedAgoMs: 300 * DAY,
        checkInInDays: -20,
        nights: 35,
        channel: 'Direct',
      }),
    ];
    await importFile(propertyId, rows);

    const signals = await expectSignalsMatchOracle(propertyId, rows, 90, 1);

    expect(signals.signals.total_reservations).toBe(0);
    expect(Object.values(signals.occupancy_30d).filter((ratio) => ratio === 1)).toHaveLength(15);
  });

  it('divides by units (set with --units) and caps overbooking at 1', async () => {
    const { propertyId } = await sponsoredProperty(partner.id);
    const rows = [0, 1, 2, 3].map((i) =>
      reservation(propertyId, `u${i}`, { bookedAgoMs: DAY, checkInInDays: 0, nights: i + 1 }),
    );
    await importFile(propertyId, rows, '--units', '3');

    const signals = await expectSignalsMatchOracle(propertyId, rows, 90, 3);

    expect(signals.signals.occupancy_today).toBe(1);
    expect(Object.values(signals.occupancy_30d).slice(0, 4)).toEqual([1, 1, 0.6667, 0.3333]);
  });

  it('keeps channels named like object properties in source_mix, as own keys of the JSON', async () => {
    const { propertyId } = await sponsoredProperty(partner.id);
    const channels = ['__proto__', 'constructor', '__proto__', 'toString', 'hasOwnProperty'];
    const rows = channels.map((channel, i) =>
      reservation(propertyId, `o${i}`, { bookedAgoMs: (i + 2) * DAY, checkInInDays: 5, nights: 1, channel }),
    );
    expect((await importFile(propertyId, rows)).result).toEqual({
      published: 5,
      unchanged: 0,
      applied: true,
    });

    const { status, text } = await apiGet(
      `/properties/${propertyId}/pricing-signals?lookback_days=30`,
      partner.key,
    );
    const body = JSON.parse(text) as PricingSignalsResponse;
    const mix = body.signals.source_mix;

    expect(status).toBe(200);
    expect(text).toContain('"__proto__":0.4');
    expect(Object.hasOwn(mix, '__proto__')).toBe(true);
    expect(Object.hasOwn(mix, 'constructor')).toBe(true);
    expect(Object.entries(mix).sort(([a], [b]) => (a < b ? -1 : 1))).toEqual([
      ['__proto__', 0.4],
      ['constructor', 0.2],
      ['hasOwnProperty', 0.2],
      ['toString', 0.2],
    ]);
    expect(body.signals.total_reservations).toBe(5);
  });

  it('reports invalid rows by their number, counted from 1, and imports nothing', async () => {
    const { propertyId } = await sponsoredProperty(partner.id);
    const good = reservation(propertyId, 'good', { bookedAgoMs: DAY, checkInInDays: 0, nights: 1 });

    const { code, stderr } = await importFile(propertyId, [
      good,
      { ...good, id: 'bad', check_in: 'soon' },
      { ...good, id: 'worse', status: 'maybe' },
    ]);
    const signals = await apiGet(`/properties/${propertyId}/pricing-signals`, partner.key);

    expect(code).toBe(1);
    expect(stderr).toContain('Nothing was imported: 2 invalid row(s)');
    expect(stderr).toContain('row 2: check_in');
    expect(stderr).toContain('row 3: status');
    expect((signals.json.signals as { total_reservations: number }).total_reservations).toBe(0);
  });

  it('refuses an unknown property and a file that is not JSON', async () => {
    const missing = await importFile(99_999_999, []);
    const { propertyId } = await sponsoredProperty(partner.id);
    const file = join(folder(), 'broken.json');
    await writeFile(file, '[{"id": ');
    const err: string[] = [];
    const code = await runCli(importArguments(propertyId, file), {
      out: () => undefined,
      err: (t) => err.push(t),
    });

    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('No property 99999999');
    expect(code).toBe(1);
    expect(err.join('')).toContain('is not valid JSON');
  });

  it('matches the formulas for any set of reservations and any lookback (property-based)', async () => {
    const row = fc.record({
      bookedAgoMs: fc.integer({ min: 0, max: 400 * DAY }),
      checkInOffset: fc.integer({ min: -3, max: 60 }),
      nights: fc.integer({ min: 1, max: 21 }),
      channel: fc.constantFrom('Airbnb', 'Booking.com', 'Direct', 'Vrbo'),
      cancelled: fc.boolean(),
    });
    await fc.assert(
      fc.asyncProperty(
        fc.array(row, { maxLength: 40 }),
        fc.integer({ min: 1, max: 365 }),
        fc.integer({ min: 1, max: 4 }),
        async (rows, lookbackDays, units) => {
          const { propertyId } = await sponsoredProperty(partner.id);
          const now = Date.now();
          const reservations = rows.map((r, i): Reservation => {
            const bookedAt = now - r.bookedAgoMs;
            const checkIn = Math.floor(bookedAt / DAY) + Math.max(0, r.checkInOffset);
            return {
              id: `p${i}`,
              property_id: propertyId,
              channel: r.channel,
              booked_at: new Date(bookedAt).toISOString(),
              check_in: isoDay(checkIn * DAY),
              check_out: isoDay((checkIn + r.nights) * DAY),
              status: r.cancelled ? 'cancelled' : 'confirmed',
            };
          });
          expect((await importFile(propertyId, reservations, '--units', String(units))).code).toBe(0);
          await expectSignalsMatchOracle(propertyId, reservations, lookbackDays, units);
        },
      ),
      { numRuns: 12 },
    );
  });

  it('answers signals inside the published schema for any import it accepts, however wild the dates (property-based)', async () => {
    const day = fc.integer({ min: Date.UTC(1999, 0, 1) / DAY, max: Date.UTC(2101, 0, 1) / DAY });
    const row = fc.record({
      // Around today (so that rows fall in the window) or anywhere the rules might let through.
      bookedDay: fc.oneof(
        fc.integer({ min: -400, max: 1 }).map((ago) => Math.floor(Date.now() / DAY) + ago),
        day,
      ),
      leadDays: fc.oneof(
        fc.integer({ min: -4_000, max: 4_000 }),
        fc.constantFrom(-3_651, -3_650, 3_650, 3_651),
      ),
      nights: fc.oneof(fc.integer({ min: 1, max: 30 }), fc.constantFrom(729, 730, 731)),
      channel: fc.constantFrom('Airbnb', 'Direct'),
    });
    await fc.assert(
      fc.asyncProperty(
        fc.array(row, { minLength: 1, maxLength: 12 }),
        fc.integer({ min: 1, max: 365 }),
        async (rows, lookbackDays) => {
          const { propertyId } = await sponsoredProperty(partner.id);
          const reservations = rows.map((r, i) => ({
            id: `w${i}`,
            property_id: propertyId,
            channel: r.channel,
            booked_at: new Date(r.bookedDay * DAY + 43_200_000).toISOString(),
            check_in: isoDay((r.bookedDay + r.leadDays) * DAY),
            check_out: isoDay((r.bookedDay + r.leadDays + r.nights) * DAY),
            status: 'confirmed',
          }));
          const imported = await importFile(propertyId, reservations);
          if (imported.code !== 0) {
            // Refused as a whole, naming rows: never a crash.
            expect(imported.code).toBe(1);
            expect(imported.stderr).toMatch(/row \d+/);
            return;
          }
          const { status, json } = await apiGet(
            `/properties/${propertyId}/pricing-signals?lookback_days=${lookbackDays}`,
            partner.key,
          );
          expect(status).toBe(200);
          const parsed = z.safeParse(pricingSignalsSchema, json);
          expect(parsed.success, JSON.stringify(parsed.error?.issues)).toBe(true);
        },
      ),
      { numRuns: 25 },
    );
  });

  it('keeps what a file holds off the operator’s terminal: escape sequences in a syntax error or an id', async () => {
    const { propertyId } = await sponsoredProperty(partner.id);
    const file = join(folder(), 'hostile.json');
    const escapes = '\u001b]0;owned\u0007\u001b[2J\u001b[31m';
    // The parser quotes the text around a syntax error, escapes included.
    await writeFile(file, `[{"id": "r-1"}, ${escapes}]`);
    const broken = await runImport(propertyId, file);
    await writeFile(
      file,
      JSON.stringify([
        { ...reservation(propertyId, escapes, { bookedAgoMs: DAY, checkInInDays: 3, nights: 2 }) },
        { ...reservation(propertyId, escapes, { bookedAgoMs: DAY, checkInInDays: 3, nights: 2 }) },
      ]),
    );
    const badIds = await runImport(propertyId, file);

    for (const run of [broken, badIds]) {
      expect(run.code).toBe(1);
      expect(run.stderr.split('\n').filter((line) => !isOneLine(line))).toEqual([]);
    }
    expect(broken.stderr).toContain('not valid JSON');
    expect(badIds.stderr).toContain('id: must be one line of text');
  });
});
