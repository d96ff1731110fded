import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { DAY_MS, isoDate } from '../../core/domain/calendar';
import type { Reservation } from '../../core/domain/reservations';
import { MAX_CHANNEL_LENGTH, MAX_CHANNELS_PER_MONTH } from '../../core/domain/reservations';
import { dynamoDb, tableName } from '../../lambdas/data/db';
import { findPropertyById } from '../../lambdas/data/properties';
import { itemBytes, longestKey, MAX_ITEM_BYTES, worstCaseAggregateItem } from '../support/item-size';
import type { TestPartner } from '../support/partners';
import { apiGet, approvedPartner, sponsoredProperty } from '../support/partners';
import { importAsProcess, importFolder, importInProcess, storedItemsOf } from '../support/reservation-import';

let partner: TestPartner;
const { writeRows } = importFolder();

beforeAll(async () => {
  partner = await approvedPartner();
});

/** A whole month of 31 days that ended before today, within the last year (first day number). */
function past31DayMonth(): number {
  const now = new Date();
  for (let back = 1; ; back++) {
    const first = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - back, 1);
    const start = new Date(first);
    if (new Date(Date.UTC(start.getUTCFullYear(), start.getUTCMonth(), 31)).getUTCDate() === 31)
      return first / DAY_MS;
  }
}

/** The longest channel name the parser accepts, in bytes: 64 characters of 3 UTF-8 bytes each. */
const worstCaseChannel = (index: number) => longestKey(MAX_CHANNEL_LENGTH, index);

/** One confirmed reservation per channel and per day of the month, each for one night. */
function monthOfBookings(propertyId: number, firstDay: number, channels: readonly string[], tag: string) {
  const rows: Reservation[] = [];
  for (let day = firstDay; day < firstDay + 31; day++) {
    channels.forEach((channel, index) => {
      rows.push({
        id: `${tag}-${day}-${index}`,
        property_id: propertyId,
        channel,
        booked_at: new Date(day * DAY_MS + 10 * 3_600_000).toISOString(),
        check_in: isoDate(day + 7),
        check_out: isoDate(day + 8),
        status: 'confirmed',
      });
    });
  }
  return rows;
}

describe('booking channels per property and month', () => {
  it('refuses a file whose channels would overflow the month aggregate, before writing anything, on every retry', async () => {
    const { propertyId } = await sponsoredProperty(partner.id);
    const month = past31DayMonth();
    // 80 channels of 64 three-byte characters on each of 31 days: about 480 KB of attribute names alone,
    // more than DynamoDB's 400 KB item limit for the BOOKED# item of that month.
    const channels = Array.from({ length: 80 }, (_, index) => worstCaseChannel(index));
    const file = await writeRows(monthOfBookings(propertyId, month, channels, 'wide'));
    const unitsBefore = (await findPropertyById(propertyId))?.units;

    const first = await importAsProcess(propertyId, file, '--units', '7');
    const retry = await importAsProcess(propertyId, file, '--units', '7');

    for (const attempt of [first, retry]) {
      expect(attempt.code).toBe(1);
      expect(attempt.stdout).toBe('');
      expect(attempt.stderr).toContain('Nothing was imported');
      expect(attempt.stderr).toContain(`property ${propertyId}`);
      expect(attempt.stderr).toContain(isoDate(month).slice(0, 7));
      expect(attempt.stderr).toContain(`at most ${MAX_CHANNELS_PER_MONTH}`);
      expect(attempt.stderr).not.toContain('ValidationError');
    }
    expect(retry.stderr).toBe(first.stderr);
    expect(await storedItemsOf(propertyId)).toEqual([]);
    expect((await findPropertyById(propertyId))?.units).toBe(unitsBefore);
    const signals = await apiGet(`/properties/${propertyId}/pricing-signals?lookback_days=365`, partner.key);
    expect((signals.json.signals as { total_reservations: number }).total_reservations).toBe(0);
  });

  it('accepts exactly the cap of longest channel names on every day of a month, in an item well under 400 KB', async () => {
    const { propertyId } = await sponsoredProperty(partner.id);
    const month = past31DayMonth();
    const channels = Array.from({ length: MAX_CHANNELS_PER_MONTH }, (_, index) => worstCaseChannel(index));
    const rows = monthOfBookings(propertyId, month, channels, 'cap');

    const result = await importInProcess(propertyId, await writeRows(rows));

    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({ published: rows.length, unchanged: 0, applied: true });
    // Measured by DynamoDB itself: a strongly consistent read costs one unit per started 4 KB.
    const read = await dynamoDb().send(
      new GetCommand({
        TableName: tableName(),
        Key: { PK: `PROPERTY#${propertyId}`, SK: `BOOKED#${isoDate(month).slice(0, 7)}` },
        ConsistentRead: true,
        ReturnConsumedCapacity: 'TOTAL',
      }),
    );
    const item = read.Item ?? {};
    const measuredAtMost = (read.ConsumedCapacity?.CapacityUnits ?? Number.NaN) * 4096;
    const worstCase = itemBytes(worstCaseAggregateItem('booked'));

    expect(Object.keys(item).filter((name) => name.startsWith('c'))).toHaveLength(
      31 * MAX_CHANNELS_PER_MONTH,
    );
    // The item's size counted as DynamoDB's documentation counts it falls in the 4 KB DynamoDB measured...
    expect(itemBytes(item)).toBeLessThanOrEqual(measuredAtMost);
    expect(itemBytes(item)).toBeGreaterThan(measuredAtMost - 4096);
    // ...which is within the worst case that the counters' declaration allows, a third of 400 KB.
    expect(measuredAtMost).toBeLessThanOrEqual(Math.ceil(worstCase / 4096) * 4096);
    expect(worstCase).toBeLessThanOrEqual(MAX_ITEM_BYTES / 3);
  });

  it('counts the channels already stored for the month: one more channel later is refused and nothing of it is stored', async () => {
    const { propertyId } = await sponsoredProperty(partner.id);
    const month = past31DayMonth();
    const channels = Array.from({ length: MAX_CHANNELS_PER_MONTH }, (_, index) => `Channel ${index}`);
    const first = await importInProcess(
      propertyId,
      await writeRows(monthOfBookings(propertyId, month, channels, 'a')),
    );
    expect(first.code).toBe(0);
    const before = await storedItemsOf(propertyId);
    const extra: Reservation = {
      id: 'one-more',
      property_id: propertyId,
      channel: 'One channel too many',
      booked_at: new Date((month + 20) * DAY_MS).toISOString(),
      check_in: isoDate(month + 25),
      check_out: isoDate(month + 26),
      status: 'confirmed',
    };

    const refused = await importInProcess(propertyId, await writeRows([extra]));
    const again = await importInProcess(propertyId, await writeRows([extra]));
    // An existing channel on another day of the month is still fine.
    const existing = await importInProcess(
      propertyId,
      await writeRows([{ ...extra, id: 'existing-channel', channel: 'Channel 3' }]),
    );

    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      `${MAX_CHANNELS_PER_MONTH + 1} booking channels in ${isoDate(month).slice(0, 7)}`,
    );
    expect(again.stderr).toBe(refused.stderr);
    expect(existing.code).toBe(0);
    expect(await storedItemsOf(propertyId)).toEqual([...before, 'RES#existing-channel'].sort());
  });
});
