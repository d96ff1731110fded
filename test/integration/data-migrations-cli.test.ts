import { DeleteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { DAY_MS, isoDate } from '../../core/domain/calendar';
import type { Reservation } from '../../core/domain/reservations';
import { propertyPartition } from '../../core/partitions';
import { dynamoDb, tableName } from '../../lambdas/data/db';
import { applyReservationChanges } from '../../lambdas/data/reservations/apply';
import { aggregatesOfProperty } from '../support/aggregates';
import { admin, adminJson } from '../support/cli';
import { approvedPartner, sponsoredProperty } from '../support/partners';

/*
 * `npm run admin -- data migrate` on the suite's local server, with the service's own migrations:
 * a property whose aggregates went wrong is found by the dry run, put right by the run, and a
 * second run changes nothing. The only test file that runs the service's migrations (they run once
 * per table).
 */

let propertyId: number;

/** The property's aggregate items, without counters at 0 (the same as none). */
const aggregates = async () => (await aggregatesOfProperty(propertyId)).stored;

function reservation(index: number, bookedDaysAgo: number, nights: number, channel: string): Reservation {
  const booked = Date.now() - bookedDaysAgo * DAY_MS;
  const checkIn = Math.floor(booked / DAY_MS) + 5;
  return {
    id: `mig-${index}`,
    property_id: propertyId,
    channel,
    booked_at: new Date(booked).toISOString(),
    check_in: isoDate(checkIn),
    check_out: isoDate(checkIn + nights),
    status: 'confirmed',
  };
}

beforeAll(async () => {
  const partner = await approvedPartner();
  ({ propertyId } = await sponsoredProperty(partner.id));
  const rows = [
    reservation(1, 40, 3, 'Direct'),
    reservation(2, 12, 2, 'Booking.com'),
    reservation(3, 3, 1, 'Direct'),
  ];
  const results = await applyReservationChanges(
    rows.map((row, index) => ({
      detail: { property_id: propertyId, version: 1, reservation: row },
      fingerprint: `migration-test-${index}`,
    })),
    propertyId,
    new Date().toISOString(),
  );
  expect(results).toEqual(['applied', 'applied', 'applied']);
});

describe('data migrate on a local server', () => {
  it('finds wrong aggregates on a dry run, puts them right, and a second run changes nothing', async () => {
    const right = await aggregates();
    const [booked, nights] = ['BOOKED#', 'NIGHTS#'].map((prefix) =>
      Object.keys(right).find((sk) => sk.startsWith(prefix)),
    );
    if (!booked || !nights) throw new Error('The reservations made no aggregates.');
    const counter = Object.keys(right[booked] ?? {}).find((attribute) => attribute.startsWith('n')) ?? '';
    // Three ways stored aggregates go wrong: a counter off, a stray counter, a month item lost.
    await dynamoDb().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: { PK: propertyPartition(propertyId), SK: booked },
        UpdateExpression: 'ADD #counter :two, #stray :one',
        ExpressionAttributeNames: { '#counter': counter, '#stray': 'c01:Ghost' },
        ExpressionAttributeValues: { ':two': 2, ':one': 1 },
      }),
    );
    await dynamoDb().send(
      new DeleteCommand({ TableName: tableName(), Key: { PK: propertyPartition(propertyId), SK: nights } }),
    );
    expect(await aggregates()).not.toEqual(right);

    const before = await adminJson('data', 'migrations');
    expect(before.migrations.map((migration: { state: string }) => migration.state)).toEqual([
      'pending',
      'pending',
    ]);

    const dry = await admin('data', 'migrate', '--dry-run');
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain('0001 rebuild-reservation-aggregates: would change');
    expect(dry.stdout).toMatch(new RegExp(`property ${propertyId}: ${booked}: .*${counter} \\d+ → \\d+`));
    expect(dry.stdout).toContain(`property ${propertyId}: ${nights}:`);
    expect(dry.stdout).toContain('Dry run: nothing was changed or recorded.');
    expect(await aggregates()).not.toEqual(right);

    const run = await adminJson('data', 'migrate');
    expect(run.migrations.map((migration: { outcome: string }) => migration.outcome)).toEqual([
      'applied',
      'applied',
    ]);
    expect(await aggregates()).toEqual(right);

    const again = await admin('data', 'migrate');
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('0001 rebuild-reservation-aggregates: applied earlier');
    expect(again.stdout).toContain('0002 catalog-texts: applied earlier');
    expect(await aggregates()).toEqual(right);

    const listed = await admin('data', 'migrations');
    expect(listed.stdout).toMatch(/0001\s+rebuild-reservation-aggregates\s+applied/);
    const audit = await adminJson('audit', 'list', '--action', 'data.migrated');
    expect(audit.events.map((event: { details: { migration: string } }) => event.details.migration)).toEqual(
      expect.arrayContaining(['0001-rebuild-reservation-aggregates', '0002-catalog-texts']),
    );
  });
});
